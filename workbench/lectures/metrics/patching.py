"""The Patching view's metrics: the activation-patching sweep of the step's form, as the heatmap shows it.

The request is the view's (``PatchingState.request()`` after the step's ``clean``, ``corrupt``, ``target``,
``contrast`` (older presets: ``answer``, ``wrong``), ``site``, ``corrupt_by``, ``subject`` and ``output_position``), the sweep its job
(``lm_workbench.patching.view_tasks.patching_sweep``, the exact one; ``fast`` steps are computed exactly too: a claim
is about what patching shows, not about its gradient approximation). ``effect`` is the recovered fraction of
the metric at one (layer, token) cell: 0 = the corrupted run's, 1 = the clean run's.
"""

from __future__ import annotations

from typing import Any

from lm_workbench.lectures.metrics.base import Metric, StepRun, finite, index_in, int_arg, metrics_of, token_index


def _result(run: StepRun) -> Any:
    def build() -> Any:
        from lm_workbench.engine.progress import NEVER_CANCELLED, run_to_completion
        from lm_workbench.patching.view_tasks import patching_sweep
        from lm_workbench.patching.state import PatchingState, settings_in_new_form

        s, loaded = settings_in_new_form(run.settings), run.loaded
        state = PatchingState()
        state.set_family(str(getattr(loaded.info.family, "value", loaded.info.family)))
        state.set_inputs(s.get("clean", ""), s.get("corrupt", ""), s.get("target", ""), s.get("contrast", ""),
                         s.get("site", "resid"), s.get("corrupt_by", "text"), s.get("subject", ""), False,
                         int(s.get("output_position", 0)))
        return run_to_completion(patching_sweep(loaded, state.request(), NEVER_CANCELLED))

    return run.once("patching", build)


def effect(run: StepRun, args: dict[str, Any]) -> float | None:
    r = _result(run)
    layer = index_in(int_arg(args, "layer"), len(r.effect), "layer")
    return finite(r.effect[layer][token_index(r.tokens, args["token"])])


def best_layer(run: StepRun, args: dict[str, Any]) -> float:
    """The layer whose patch at ``token`` recovers the most."""
    r = _result(run)
    column = token_index(r.tokens, args["token"])
    return float(max(range(len(r.effect)), key=lambda layer: r.effect[layer][column]))


CELL = {"layer": "0-based; -1 the last", "token": "the clean text's token (its text, e.g. \"class\", or its index; "
                                                   "-1 the last)"}
METRICS = metrics_of(
    "patching",
    Metric("effect", effect, "recovered fraction at one (layer, token) cell", CELL, ("layer", "token")),
    Metric("best_layer", best_layer, "the layer recovering the most at one token",
           {"token": CELL["token"]}, ("token",)),
    Metric("layers", lambda run, args: float(len(_result(run).effect)), "the layers patched"),
    Metric("clean_metric", lambda run, args: finite(_result(run).clean_metric),
           "the clean run's logit(answer) − logit(wrong)"),
    Metric("corrupt_metric", lambda run, args: finite(_result(run).corrupt_metric),
           "the corrupted run's logit(answer) − logit(wrong)"),
    Metric("contrast", lambda run, args: finite(_result(run).clean_metric - _result(run).corrupt_metric),
           "clean metric − corrupted metric: what the fractions are fractions of"),
)
