"""The Heads view's metrics: direct logit attribution of the step's prediction, and the sweep that ablates every
head (``zero``, ``mean`` or ``resample``, as the step's ``how`` says), from the view's jobs
(``lm_workbench.heads.view_tasks``) on the request ``HeadsState.request(text)`` makes. ``change`` is ablated − clean
for one head, as the map shows it (blue: negative, the difference drops without that head).
"""

from __future__ import annotations

from typing import Any

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.lectures.metrics.base import Metric, StepRun, finite, index_in, int_arg, metrics_of


def _request(run: StepRun) -> Any:
    from lm_workbench.heads.state import HeadsState

    s = run.settings
    state = HeadsState()
    state.set_inputs(s.get("target", ""), s.get("contrast", ""), s.get("how", "zero"), s.get("corpus", ""),
                     int(s.get("output_position", 0)))
    problem = state.problem(run.text(), sweep=True)
    if problem:
        raise WorkbenchError(problem)
    return state.request(run.text())


def _dla(run: StepRun) -> Any:
    def build() -> Any:
        from lm_workbench.engine.progress import NEVER_CANCELLED
        from lm_workbench.heads.view_tasks import dla_job

        kind, value = dla_job(run.loaded, _request(run), NEVER_CANCELLED)
        if kind != "dla":
            raise WorkbenchError(value)
        return value

    return run.once("dla", build)


def _changes(run: StepRun) -> list[list[float]]:
    def build() -> list[list[float]]:
        from lm_workbench.engine.progress import NEVER_CANCELLED, run_to_completion
        from lm_workbench.heads.view_tasks import sweep_job

        sweep = run_to_completion(sweep_job(run.loaded, _request(run), NEVER_CANCELLED))
        return [[v - sweep.clean_metric for v in row] for row in sweep.ablated_metric]

    return run.once("sweep", build)


def change(run: StepRun, args: dict[str, Any]) -> float | None:
    rows = _changes(run)
    row = rows[index_in(int_arg(args, "layer"), len(rows), "layer")]
    return finite(row[index_in(int_arg(args, "head"), len(row), "head")])


def dla_head(run: StepRun, args: dict[str, Any]) -> float | None:
    d = _dla(run)
    row = d.attn[index_in(int_arg(args, "layer"), len(d.attn), "layer")]
    return finite(row[index_in(int_arg(args, "head"), len(row), "head")])


HEAD = {"layer": "0-based attention row; -1 the last", "head": "0-based"}
METRICS = metrics_of(
    "heads",
    Metric("logit_difference", lambda run, args: finite(_dla(run).total),
           "the model's logit(target) − logit(contrast) for the step's text"),
    Metric("approximation_gap", lambda run, args: finite(abs(_dla(run).approximation_gap)),
           "|total − sum of the parts| of the split (0: the parts add up)"),
    Metric("dla", dla_head, "one head's direct share of the difference", HEAD, ("layer", "head")),
    Metric("largest_dla", lambda run, args: finite(max(max(r) for r in _dla(run).attn)),
           "the largest head share (toward the target)"),
    Metric("change", change, "one head's ablated − clean difference", HEAD, ("layer", "head")),
    Metric("largest_drop", lambda run, args: finite(-min(min(r) for r in _changes(run))),
           "the largest drop of the difference when one head is ablated (positive: some head matters)"),
    Metric("largest_rise", lambda run, args: finite(max(max(r) for r in _changes(run))),
           "the largest rise of the difference when one head is ablated"),
)
