"""``runs list``: the run store's runs, newest first, with each one's final metrics."""

from __future__ import annotations

import argparse
from typing import Any

from lm_workbench.cli.common import print_json


def register(sub: Any) -> None:
    """Add ``runs`` to the CLI's subparsers."""
    runs = sub.add_parser("runs", help="the run store: pre-training and other long runs")
    actions = runs.add_subparsers(dest="runs_command", metavar="ACTION")
    actions.required = True
    listing = actions.add_parser("list", help="every run, newest first, with its final metrics")
    listing.add_argument("--kind", help="only runs of this kind (e.g. pretrain)")
    listing.add_argument("--json", action="store_true", help="print JSON")
    diff = actions.add_parser("diff", help="two runs' settings side by side, the differences marked")
    diff.add_argument("a", type=int, help="a run id")
    diff.add_argument("b", type=int, help="another run id")
    diff.add_argument("--all", action="store_true", help="also list the settings that agree")
    diff.add_argument("--json", action="store_true", help="print JSON: {a, b, settings: [{setting, a, b, differs}]}")
    runs.set_defaults(handler=cmd_runs)


def cmd_runs(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute_store import runs_list
    from lm_workbench.requests import request_of

    if getattr(args, "runs_command", "list") == "diff":
        return cmd_runs_diff(args)
    data = runs_list(request_of(args)).to_dict()
    if args.json:
        print_json(data)
        return 0
    for run in data["runs"]:
        metrics = run["final_metrics"]
        shown = ", ".join(f"{k} {metrics[k]:.4g}" for k in ("loss", "validation_loss") if k in metrics)
        print(f"{run['id']:>5}  {run['kind']:<10} {run['status']:<11} {run.get('model') or '':<14} "
              f"{run.get('method') or '':<12} {shown}")
    return 0


def cmd_runs_diff(args: argparse.Namespace) -> int:
    """``runs diff A B``: the settings of two runs, the differing ones marked (the Runs tab's config diff)."""
    import json

    from lm_workbench.command_results.compute_store import runs_diff
    from lm_workbench.requests import request_of

    data = runs_diff(request_of(args)).to_dict()
    if args.json:
        print_json(data)
        return 0
    a, b, rows = data["a"], data["b"], data["settings"]
    print(f"A: run #{a['id']} ({a['kind']}) {a.get('name') or ''}")
    print(f"B: run #{b['id']} ({b['kind']}) {b.get('name') or ''}")
    shown = [r for r in rows if r["differs"] or args.all]
    width = max([len(r["setting"]) for r in shown] + [7])

    def text(value: object, absent: bool) -> str:
        return "(absent)" if absent else value if isinstance(value, str) else json.dumps(value, default=str)

    for r in shown:
        mark = "*" if r["differs"] else " "
        print(f"{mark} {r['setting']:<{width}}  {text(r['a'], r['only'] == 'b')}  |  {text(r['b'], r['only'] == 'a')}")
    if not any(r["differs"] for r in rows):
        print("the two runs' settings are the same")
    return 0
