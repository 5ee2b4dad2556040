"""``study list`` and ``study table`` computed for both front ends: the built-in and user studies (name, title,
scales, cells at lecture scale) and a study's table as its cells stand (local values beside the published ones,
each row's runs), optionally exported as a folder for a lecture. They read no loaded model; ``study run`` stays its
handler's (a queue of recorded runs). Errors: ``WorkbenchError`` with the CLI's line.
"""

from __future__ import annotations

from typing import Any

from lm_workbench.command_results.compute import as_json
from lm_workbench.command_results.results import Result, result_for
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
