"""``presets``: the lecture presets and whether this installation can show them.

``lm-workbench presets list --json`` prints one object per preset (built-in
ones, then any ``--file``)::

    [{"name": "bert-masking", "title": "...", "model": "default", "steps": 3, "available": true,
      "step_captions": [...], "steps_available": [true, ...]},
     {"name": "lora-vs-full", ..., "available": false, "reason": "needs the 'finetune' view, ..."}]

``lm-workbench presets check FILE`` validates a teacher's preset file: it
prints the same object, or one line naming the file and the field that is
wrong (exit code 2).
"""

from __future__ import annotations

import argparse
from typing import Any

from lm_workbench.cli.common import echo, frontend_attribute, print_json


def register(sub: Any) -> None:
    presets = sub.add_parser("presets", help="list the lecture presets, or check a preset file")
    actions = presets.add_subparsers(dest="presets_action", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="the built-in presets (and --file ones) with their availability")
    listing.add_argument("--file", action="append", default=[], metavar="FILE", help="also list this preset file")
    listing.add_argument("--json", action="store_true", help="print JSON")
    check = actions.add_parser("check", help="validate a preset file and say whether it can be shown here")
    check.add_argument("file", metavar="FILE")
    check.add_argument("--json", action="store_true", help="print JSON")
    presets.set_defaults(handler=cmd_presets)


def cmd_presets(args: argparse.Namespace) -> int:
    return cmd_presets_check(args) if args.presets_action == "check" else cmd_presets_list(args)


def _views() -> dict[str, frozenset[str]] | None:
    """The installed window's views (id -> setting keys each applies), or None with no window installed."""
    views = frontend_attribute("preset_views")
    return views() if callable(views) else None


def describe(preset: Any, views: Any, course_models: Any) -> dict[str, Any]:
    from lm_workbench.lectures.availability import check_preset

    status = check_preset(preset, views, course_models)
    row: dict[str, Any] = {"name": preset.name, "title": preset.title, "model": preset.model,
                           "steps": len(preset.steps), "available": status.available}
    if not status.available:
        row["reason"] = status.reason
    row["step_captions"] = [s.caption for s in preset.steps]
    row["steps_available"] = [s.available for s in status.steps]
    row["step_reasons"] = [s.reason for s in status.steps]
    return row


def _print(rows: list[dict[str, Any]], as_json: bool) -> None:
    if as_json:
        print_json(rows, indent=1)
        return
    for row in rows:
        mark = "available" if row["available"] else f"unavailable: {row['reason']}"
        echo(f"{row['name']:<26} {row['steps']} steps  {row['title']}  ({mark})")


def cmd_presets_list(args: argparse.Namespace) -> int:
    from lm_workbench.lectures.availability import installed_course_models
    from lm_workbench.lectures.library import builtin_presets, load_preset_file

    presets = builtin_presets() + [load_preset_file(f) for f in args.file]
    views, course = _views(), installed_course_models()
    _print([describe(p, views, course) for p in presets], args.json)
    return 0


def cmd_presets_check(args: argparse.Namespace) -> int:
    from lm_workbench.lectures.availability import installed_course_models
    from lm_workbench.lectures.library import load_preset_file

    preset = load_preset_file(args.file)  # a PresetError: one line, exit 2
    row = describe(preset, _views(), installed_course_models())
    if args.json:
        print_json(row, indent=1)
    else:
        echo(f"{args.file}: a valid preset ({row['steps']} steps)")
        _print([row], False)
    return 0
