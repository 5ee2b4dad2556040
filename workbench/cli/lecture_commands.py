"""``presets``: the lecture presets and whether this installation can show them.

``lm-workbench presets list --json`` prints one object per preset (built-in
ones, then any ``--file``)::

    [{"name": "bert-masking", "title": "...", "model": "default", "steps": 3, "available": true,
      "step_captions": [...], "steps_available": [true, ...]},
     {"name": "lora-vs-full", ..., "available": false, "reason": "needs the 'finetune' view, ..."}]

``lm-workbench presets check FILE`` validates a teacher's preset file: it
prints the same object, or one line naming the file and the field that is
wrong (exit code 2), a claim's unknown metric or op included.

``lm-workbench presets verify [--json] [FILE_OR_NAME ...]`` evaluates every
claim of the named presets (files, built-in or own presets by name; none: all
the built-in ones) on the models they name and lists each as holds, fails or
cannot run (a model that is not on this machine: which, and how to build it),
with the numbers::

    {"claims": [{"preset": "why-sbert", "step": 2, "claim": "...", "value": 0.336, "holds": true,
                 "status": "holds", "predicate": "ndcg < ndcg [step 1]", "compared_to": 0.349,
                 "model": "...", "reason": "..."}],
     "counts": {"holds": 30, "fails": 1, "cannot run": 2}, "notes": [...]}

Exit code 0 when every claim that ran holds, 1 when one fails, 2 for bad input.
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
    verify = actions.add_parser("verify", help="evaluate the presets' claims on the models they name: holds / fails "
                                               "/ cannot run, with the numbers")
    verify.add_argument("presets", nargs="*", metavar="FILE_OR_NAME",
                        help="preset files or names (built-in, or in your presets folder); none: every built-in one")
    verify.add_argument("--json", action="store_true", help="print JSON")
    presets.set_defaults(handler=cmd_presets)


def cmd_presets(args: argparse.Namespace) -> int:
    handlers = {"check": cmd_presets_check, "verify": cmd_presets_verify}
    return handlers.get(args.presets_action, cmd_presets_list)(args)


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
    row["step_claims"] = [len(s.claims) for s in preset.steps]
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


def _named_presets(names: list[str]) -> list[Any]:
    """The presets ``names`` name: a file, else a built-in preset, else one in the user's presets folder."""
    from pathlib import Path

    from lm_workbench.lectures.library import builtin_presets, load_preset_file, user_presets
    from lm_workbench.lectures.schema import PresetError

    if not names:
        return builtin_presets()
    builtin = {p.name: p for p in builtin_presets()}
    out = []
    for name in names:
        if Path(name).is_file():
            out.append(load_preset_file(name))
        elif name in builtin:
            out.append(builtin[name])
        else:
            own = {p.name: p for p in user_presets()[0]}
            if name not in own:
                raise PresetError(f"{name}: neither a preset file nor a preset's name (built-in: "
                                  f"{', '.join(builtin)})")
            out.append(own[name])
    return out


def _outcome_line(o: Any) -> str:
    from lm_workbench.lectures.verify import CANNOT_RUN

    number = (lambda v: "null" if v is None else f"{v:.4g}")  # noqa: E731
    if o.status == CANNOT_RUN:
        numbers = "-"
    else:
        numbers = f"{number(o.value)} vs {number(o.compared_to)}"
    return f"{o.preset:<28} {o.step:>2}  {o.status.upper():<10} {numbers:<22} {o.claim}  [{o.predicate}]" + \
        (f"\n{'':<32}{o.reason}" if o.reason else "")


def cmd_presets_verify(args: argparse.Namespace) -> int:
    from lm_workbench.cli.common import EXIT_FAILURE, EXIT_OK, note
    from lm_workbench.lectures.verify import CANNOT_RUN, FAILS, HOLDS, verify_presets

    presets = _named_presets(list(args.presets))  # a bad file or name: one line, exit 2, before any model loads
    notes = [f"{p.name}: no step carries a claim" for p in presets if not any(s.claims for s in p.steps)]
    show = None if args.json else (lambda o: print(_outcome_line(o), flush=True))
    outcomes = verify_presets(presets, on_outcome=show)
    counts = {k: sum(o.status == k for o in outcomes) for k in (HOLDS, FAILS, CANNOT_RUN)}
    if args.json:
        print_json({"claims": [o.to_json() for o in outcomes], "counts": counts, "notes": notes}, indent=1)
    else:
        for line in notes:
            note(line)
        print(f"{len(outcomes)} claims: {counts[HOLDS]} hold, {counts[FAILS]} fail, {counts[CANNOT_RUN]} cannot run "
              "here")
    return EXIT_FAILURE if counts[FAILS] else EXIT_OK
