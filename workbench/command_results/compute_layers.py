"""The layer-wise recorded runs computed for both front ends: ``probe`` (a linear probe per layer against a
control task, Hewitt & Liang 2019), ``sts`` (Spearman's rho of cosine similarities per layer, Reimers & Gurevych
2019) and ``scalar-mix`` (ELMo's softmax-normalised layer weights and gamma, Peters et al. 2018). Each reads its
file, runs on the loaded model, records the run in the store and returns a result whose ``to_dict()`` is the
``--json`` payload (``run_id`` included; an undefined score is null, never NaN). The CLI's handler reads the file
before the model loads (``inputs``) and prints the result; the Python API returns it. Errors: ``WorkbenchError``
with the CLI's line (a file that cannot be read, a task the model cannot do).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lm_workbench.command_results.checks import note
from lm_workbench.command_results.compute import as_json
from lm_workbench.command_results.driving import drive_quietly
from lm_workbench.command_results.results import Result, result_for


def _task_columns(request: Any) -> dict[str, Any]:
    return {"tag_column": request.tag_column, "text_column": request.text_column,
            "label_column": request.label_column, "tsv_quoting": request.tsv_quoting}


def probe_spec(request: Any) -> Any:
    """The checked ``ProbeSpec`` of a ``probe`` request (or command line: the same names)."""
    from lm_workbench.probing.spec import ProbeSpec

    return ProbeSpec(request.model, request.task, request.kind, request.pooling, request.seed,
                     **_task_columns(request)).checked()


def sts_spec(request: Any) -> Any:
    """The checked ``StsSpec`` of an ``sts`` request (or command line)."""
    from lm_workbench.probing.spec import StsSpec

    return StsSpec(request.model, request.data, request.pooling, request.columns, request.tsv_quoting).checked()


def scalar_mix_spec(request: Any) -> Any:
    """The checked ``ScalarMixSpec`` of a ``scalar-mix`` request (or command line)."""
    from lm_workbench.probing.spec import ScalarMixSpec

    return ScalarMixSpec(request.model, request.task, request.kind, request.pooling, request.seed, request.steps,
                         **_task_columns(request)).checked()


def say_read(report: Any, quiet: bool) -> None:
    """``note: <file>: read N rows, skipped K ...`` on stderr: always when rows were skipped or changed, else
    unless ``quiet`` (the command prints --json). ``report``: a data reader's ``ReadReport`` (or None)."""
    if report is not None and (report.rows_skipped or report.notes or not quiet):
        note(f"{Path(report.source).name}: {report.summary()}")


def _recorded(run: Any, loaded: Any, inputs: Any, quiet: bool) -> tuple[Any, int]:
    from lm_workbench.paths import runs_db_path
    from lm_workbench.runs.execute import execute

    if inputs is None:
        inputs = run.read()
        say_read(getattr(inputs, "report", None), True)
    return drive_quietly(execute(run, loaded, runs_db_path(), inputs=inputs), quiet=quiet)


def probe(request: Any, loaded: Any, *, run: Any = None, inputs: Any = None, quiet: bool = True) -> Result:
    """A probe per layer: ``layers``, ``accuracy``, ``control_accuracy``, ``selectivity`` (accuracy minus
    control; fractions in [0, 1]), ``majority``, ``train_size``, ``test_size``, ``run_id``. ``run``/``inputs``: the
    ``ProbeRun`` and its read file when the caller read them already."""
    from lm_workbench.probing.runs import ProbeRun, nan_as_null

    result, run_id = _recorded(run or ProbeRun(probe_spec(request)), loaded, inputs, quiet)
    if result.left_out:
        note(f"{result.left_out} word(s) beyond the model's window were left out")
    for line in result.notes:
        note(line)
    data = {k: nan_as_null(v) for k, v in {**result.to_json(), "run_id": run_id}.items()}
    return result_for("probe", as_json(data), engine_result=result)


def sts(request: Any, loaded: Any, *, run: Any = None, inputs: Any = None, quiet: bool = True) -> Result:
    """Spearman's rho per layer: ``layers``, ``spearman`` (in [-1, 1]; null where undefined), ``pooling``,
    ``pairs``, ``run_id``."""
    from lm_workbench.probing.runs import StsRun, nan_as_null

    result, run_id = _recorded(run or StsRun(sts_spec(request)), loaded, inputs, quiet)
    for line in result.notes:
        note(line)
    data = {k: nan_as_null(v) for k, v in {**result.to_json(), "run_id": run_id}.items()}
    return result_for("sts", as_json(data), engine_result=result)


def scalar_mix(request: Any, loaded: Any, *, run: Any = None, inputs: Any = None, quiet: bool = True) -> Result:
    """ELMo's scalar mix learnt for a task: ``weights`` per layer (softmax, sum 1), ``gamma``, ``expected_layer``,
    held-out ``accuracy``, ``run_id``."""
    from lm_workbench.probing.scalar_mix_runs import ScalarMixRun

    mix, run_id = _recorded(run or ScalarMixRun(scalar_mix_spec(request)), loaded, inputs, quiet)
    return result_for("scalar-mix", as_json({**mix.to_json(), "run_id": run_id}), engine_result=mix)
