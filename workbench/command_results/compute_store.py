"""``runs list``, ``runs diff`` and ``plugins list`` computed for both front ends: the run store's runs (each with
its last value of every metric), two runs' settings side by side (the Runs tab's config diff), and the installed
objective and fine-tuning plugins with their status. They read no loaded model. The CLI's handlers print the
result; the Python API returns it. Errors: ``WorkbenchError`` with the CLI's line.
"""

from __future__ import annotations

from typing import Any

from lm_workbench.command_results.compute import as_json
from lm_workbench.command_results.results import Result, result_for


def _final_metrics(store: Any, run_id: int) -> dict[str, float]:
    """The last value of each metric a run logged."""
    last: dict[str, float] = {}
    for row in store.metrics(run_id):
        last[row["name"]] = row["value"]  # ordered by name then step: the last one wins
    return last


def runs_list(request: Any, loaded: Any = None) -> Result:
    """``runs``: every run (of ``kind``, when given), newest first, with ``final_metrics`` (name -> last value)."""
    from lm_workbench.paths import runs_db_path
    from lm_workbench.store import RunStore

    with RunStore(runs_db_path()) as store:
        runs = store.list_runs(kind=request.kind)
        for run in runs:
            run["final_metrics"] = _final_metrics(store, run["id"])
    return result_for("runs list", as_json({"runs": runs}))


def runs_diff(request: Any, loaded: Any = None) -> Result:
    """``a``, ``b`` (id, kind, name), ``differences`` (how many settings differ) and ``settings`` (setting, a, b,
    differs, only: the side a setting is only in). Errors: a run id not in the store."""
    from lm_workbench.engine.errors import WorkbenchError
    from lm_workbench.paths import runs_db_path
    from lm_workbench.runs.params_diff import diff_params
    from lm_workbench.store import RunStore

    with RunStore(runs_db_path()) as store:
        runs = []
        for run_id in (request.a, request.b):
            try:
                runs.append(store.get_run(run_id))
            except KeyError:
                raise WorkbenchError(f"no run #{run_id} in {store.path}") from None
    rows = diff_params(runs[0].get("params") or {}, runs[1].get("params") or {})
    data = {"a": {"id": runs[0]["id"], "kind": runs[0]["kind"], "name": runs[0].get("name")},
            "b": {"id": runs[1]["id"], "kind": runs[1]["kind"], "name": runs[1].get("name")},
            "differences": sum(1 for r in rows if r["differs"]), "settings": rows}
    return result_for("runs diff", as_json(data), engine_result=rows)


def plugins_list(request: Any, loaded: Any = None) -> Result:
    """``plugins``: each objective plugin's name, version, source, status, families and error (if it failed)."""
    from lm_workbench.extensions.registry import ObjectiveRegistry
    from lm_workbench.settings import load_settings

    registry = ObjectiveRegistry.discover(load_settings())
    return result_for("plugins list", as_json({"plugins": registry.to_dicts()}), engine_result=registry)
