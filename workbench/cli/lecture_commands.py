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

from lm_workbench.cli.common import echo, print_json


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


def _print(rows: list[dict[str, Any]], as_json: bool) -> None:
    if as_json:
        print_json(rows, indent=1)
        return
    for row in rows:
        mark = "available" if row["available"] else f"unavailable: {row['reason']}"
        echo(f"{row['name']:<26} {row['steps']} steps  {row['title']}  ({mark})")


def cmd_presets_list(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute_presets import presets_list
    from lm_workbench.requests import request_of

    _print(presets_list(request_of(args)).to_dict(), args.json)
    return 0


def cmd_presets_check(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute_presets import presets_check
    from lm_workbench.requests import request_of

    row = presets_check(request_of(args)).to_dict()
    if args.json:
        print_json(row, indent=1)
    else:
        echo(f"{args.file}: a valid preset ({row['steps']} steps)")
        _print([row], False)
    return 0


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
    from lm_workbench.cli.common import note
    from lm_workbench.command_results.compute_presets import presets_verify
    from lm_workbench.requests import request_of

    show = None if args.json else (lambda o: print(_outcome_line(o), flush=True))
    result = presets_verify(request_of(args), on_outcome=show)
    data = result.to_dict()
    if args.json:
        print_json(data, indent=1)
    else:
        counts = data["counts"]
        for line in data["notes"]:
            note(line)
        print(f"{len(data['claims'])} claims: {counts['holds']} hold, {counts['fails']} fail, "
              f"{counts['cannot run']} cannot run here")
    return result.exit_code
