"""``study list`` and ``study table`` computed for both front ends: the built-in and user studies (name, title,
scales, cells at lecture scale), a study run (its cells as a queue of recorded runs, resumed and reused; or only
its estimate) and a study's table as its cells stand (local values beside the published ones, each row's runs),
optionally exported as a folder for a lecture. They read no loaded model (a cell loads what it names). Errors:
``WorkbenchError`` with the CLI's line.
"""

from __future__ import annotations

from typing import Any, Callable

from lm_workbench.command_results.compute import as_json
from lm_workbench.command_results.results import EXIT_INTERRUPTED, Result, result_for
from lm_workbench.engine.errors import WorkbenchError


def study_sets(pairs: Any) -> dict[str, str]:
    """``--set NAME=VALUE`` pairs as a dict (a study's variables: a model, a data file)."""
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise WorkbenchError(f"--set takes NAME=VALUE, not {pair!r}")
        out[key.strip()] = value
    return out


def study_list(request: Any, loaded: Any = None) -> Result:
    """``studies``: each study's name, title, scales and cell count at lecture scale (sweeps and seeds expanded)."""
    from lm_workbench.studies.catalogue import catalogue

    return result_for("study list", as_json({"studies": catalogue()}))


def study_table(request: Any, loaded: Any = None) -> Result:
    """The study's table as its cells stand (``rows``: each row's local values, spread, n, runs, status and the
    published values beside; ``columns``, ``units``, ``trends``, ``notes``); with ``export`` the table, figure and
    cells written to that folder too (``engine_result``: the folder, or None)."""
    from lm_workbench.paths import runs_db_path
    from lm_workbench.store import RunStore
    from lm_workbench.studies.runner import load_state
    from lm_workbench.studies.runs import StudySpec
    from lm_workbench.studies.table import build_table

    spec = StudySpec(study=request.study, scale=request.scale, out_dir=request.out, sets=study_sets(request.set),
                     yes=False).checked()
    study, out = spec.load()
    state = load_state(study, out)
    folder = None
    with RunStore(runs_db_path()) as store:
        table = build_table(study, state.cells, store)
        if request.export:
            from lm_workbench.studies.export import export_study

            folder = export_study(study, table, state.cells, store, request.export)
    return result_for("study table", as_json(table), engine_result=(table, folder))


def study_run(request: Any, loaded: Any = None, *, echo: Callable[[str], None] | None = None) -> Result:
    """The study's cells run at ``scale`` (a queue of recorded runs; cells already run are resumed or reused):
    the table (as ``study table``) with ``run_id``, ``out_dir`` and ``cost`` (the estimate: cells, runs to make,
    ``text``). With ``estimate``, only the cost. Cancelled: exit code 130 and ``cancelled``; the same request
    resumes at the first unfinished cell. ``echo`` hears the estimate and each cell as it ends. Errors: an unknown
    study or scale, a lecture-scale run without ``yes``, a ``set`` that is not NAME=VALUE."""
    from lm_workbench.paths import runs_db_path
    from lm_workbench.store import RunStore
    from lm_workbench.studies.estimate import estimate
    from lm_workbench.studies.runs import StudyRun, StudySpec

    said = echo or (lambda line: None)
    spec = StudySpec(study=request.study, scale=request.scale, out_dir=request.out, sets=study_sets(request.set),
                     yes=bool(request.yes)).checked()
    study, out = spec.load()
    with RunStore(runs_db_path()) as store:
        cost = estimate(study, store, out)
    if request.estimate:
        return result_for("study run", as_json(cost), engine_result=cost)
    said(f"{study.title} ({study.scale} scale): {cost['text']}")

    def on_event(event: Any) -> None:
        if event.message and event.status != "running":
            said(event.message)

    summary = StudyRun(spec.__class__(**{**spec.to_dict(), "out_dir": str(out)}), on_event=on_event).in_process()
    if summary is None:  # a torchrun rank other than 0
        return result_for("study run", None)
    if summary.get("cancelled"):
        said(f"cancelled; run the same command again to resume at the first unfinished cell ({out})")
        return result_for("study run", as_json({**summary, "out_dir": str(out)}), exit_code=EXIT_INTERRUPTED)
    table = summary["table"]
    return result_for("study run", as_json({**table, "run_id": summary.get("run_id"), "out_dir": str(out),
                                            "cost": cost}), engine_result=table)
