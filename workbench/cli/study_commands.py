"""``study list|run|table``: studies (a declared grid of runs, a table and a figure, published values beside).

``run FILE_OR_NAME [--scale tiny|lecture] [--out DIR] [--set NAME=VALUE]... [--yes] [--estimate] [--json]`` states
the cost first, then runs the cells (Ctrl-C cancels; the same command resumes at the first unfinished cell);
``--json`` prints ``{name, rows: [...], published: ...}``. ``table`` prints a study's table from what has run
(``--export DIR``: table, figure and each cell's settings as one folder).
"""

from __future__ import annotations

import argparse
from typing import Any

from lm_workbench.cli.common import echo, print_json


def _study_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("study", metavar="FILE_OR_NAME", help="a study file (JSON) or a built-in study's name")
    p.add_argument("--scale", default="lecture", choices=("tiny", "lecture"),
                   help="the study's scale (default: lecture)")
    p.add_argument("--out", help="the study's folder (state, table, cells' outputs); default: in the data folder")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                   help="set one of the study's variables (a model, a data file); repeatable")
    p.add_argument("--json", action="store_true", help="print JSON")


def register(sub: Any) -> None:
    """Add ``study`` to the CLI's subparsers."""
    study = sub.add_parser("study", help="studies: a grid of runs filling a table, published values beside")
    actions = study.add_subparsers(dest="study_command", metavar="ACTION")
    actions.required = True
    listing = actions.add_parser("list", help="the built-in studies")
    listing.add_argument("--json", action="store_true", help="print JSON")
    run = actions.add_parser("run", help="run a study's cells (resumes; reuses identical runs)")
    _study_options(run)
    run.add_argument("--yes", action="store_true", help="run a study over the cell limit")
    run.add_argument("--estimate", action="store_true", help="state the cost and stop")
    table = actions.add_parser("table", help="a study's table from the runs made so far")
    _study_options(table)
    table.add_argument("--export", metavar="DIR", help="also write the table, figure and cells to DIR")
    study.set_defaults(handler=cmd_study)


def cmd_study(args: argparse.Namespace) -> int:
    handlers = {"list": _list, "run": _run}
    return handlers.get(args.study_command, _table)(args)


def _list(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute_studies import study_list
    from lm_workbench.requests import request_of

    data = study_list(request_of(args)).to_dict()
    if args.json:
        print_json(data)
        return 0
    for s in data["studies"]:
        print(f"{s['name']:<24} {s['title']} ({', '.join(s['scales'])}; {s['cells']} cells at lecture scale)")
    return 0


def _run(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute_studies import study_run
    from lm_workbench.requests import request_of

    result = study_run(request_of(args), echo=echo)
    data = result.to_dict()
    if data is None or result.exit_code:  # another torchrun rank; cancelled (said on stderr)
        return result.exit_code
    if args.estimate:
        print_json(data) if args.json else print(data["text"])
    else:
        from lm_workbench.studies.table import format_table

        print_json(data) if args.json else print(format_table(result.engine_result))
    return 0


def _table(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute_studies import study_table
    from lm_workbench.requests import request_of
    from lm_workbench.studies.table import format_table

    computed = study_table(request_of(args))
    table, folder = computed.engine_result
    if folder is not None:
        echo(f"exported the study to {folder}")
    print_json(computed.to_dict()) if args.json else print(format_table(table))
    return 0
