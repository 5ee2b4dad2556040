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
    runs.set_defaults(handler=cmd_runs)


def _final_metrics(store: Any, run_id: int) -> dict[str, float]:
    """The last value of each metric a run logged."""
    last: dict[str, float] = {}
    for row in store.metrics(run_id):
        last[row["name"]] = row["value"]  # ordered by name then step: the last one wins
    return last


def cmd_runs(args: argparse.Namespace) -> int:
    from lm_workbench.paths import runs_db_path
    from lm_workbench.store import RunStore

    with RunStore(runs_db_path()) as store:
        runs = store.list_runs(kind=args.kind)
        for run in runs:
            run["final_metrics"] = _final_metrics(store, run["id"])
    if args.json:
        print_json({"runs": runs})
        return 0
    for run in runs:
        metrics = run["final_metrics"]
        shown = ", ".join(f"{k} {metrics[k]:.4g}" for k in ("loss", "validation_loss") if k in metrics)
        print(f"{run['id']:>5}  {run['kind']:<10} {run['status']:<11} {run.get('model') or '':<14} "
              f"{run.get('method') or '':<12} {shown}")
    return 0
