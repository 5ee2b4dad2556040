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


def _final_metrics(store: Any, run_id: int) -> dict[str, float]:
    """The last value of each metric a run logged."""
    last: dict[str, float] = {}
    for row in store.metrics(run_id):
        last[row["name"]] = row["value"]  # ordered by name then step: the last one wins
    return last


def cmd_runs(args: argparse.Namespace) -> int:
    from lm_workbench.paths import runs_db_path
    from lm_workbench.store import RunStore

    if getattr(args, "runs_command", "list") == "diff":
        return cmd_runs_diff(args)

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


def cmd_runs_diff(args: argparse.Namespace) -> int:
    """``runs diff A B``: the settings of two runs, the differing ones marked (the Runs tab's config diff)."""
    import json

    from lm_workbench.engine.errors import WorkbenchError
    from lm_workbench.paths import runs_db_path
    from lm_workbench.runs.params_diff import diff_params
    from lm_workbench.store import RunStore

    with RunStore(runs_db_path()) as store:
        runs = []
        for run_id in (args.a, args.b):
            try:
                runs.append(store.get_run(run_id))
            except KeyError:
                raise WorkbenchError(f"no run #{run_id} in {store.path}") from None
    rows = diff_params(runs[0].get("params") or {}, runs[1].get("params") or {})
    if args.json:
        print_json({"a": {"id": runs[0]["id"], "kind": runs[0]["kind"], "name": runs[0].get("name")},
                    "b": {"id": runs[1]["id"], "kind": runs[1]["kind"], "name": runs[1].get("name")},
                    "differences": sum(1 for r in rows if r["differs"]), "settings": rows})
        return 0
    print(f"A: run #{runs[0]['id']} ({runs[0]['kind']}) {runs[0].get('name') or ''}")
    print(f"B: run #{runs[1]['id']} ({runs[1]['kind']}) {runs[1].get('name') or ''}")
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
