"""The Probing view's metrics: its layer-wise probes, the scalar mix and STS, computed as the view runs them.

The runs are the view's (``ProbeRun``, ``ScalarMixRun``, ``StsRun`` of ``lm_workbench.probing``, with the specs
``ProbingState`` makes from the step's ``task``, ``kind``, ``pooling``, ``sts_data`` and ``mix_steps``; seed 0),
computed without being recorded in the run store. Layers are the view's: 0 the embeddings, 1..L the layers
(ELMo: 0 the character CNN, 1 and 2 the biLSTM layers).
"""

from __future__ import annotations

from typing import Any

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.lectures.metrics.base import Metric, StepRun, finite, int_arg, metrics_of

DEFAULT_MIX_STEPS = 200  # the view's steps box


def _state(run: StepRun) -> Any:
    from lm_workbench.probing.state import ProbingState

    s, state = run.settings, ProbingState()
    if "task" in s:
        state.set_task(str(s["task"]), s.get("kind"))
    elif "kind" in s:
        state.set_kind(s["kind"])
    if "pooling" in s:
        state.set_pooling(s["pooling"])
    if "sts_data" in s:
        state.set_sts_data(str(s["sts_data"]))
    return state


def _compute(run: StepRun, which: str) -> Any:
    def build() -> Any:
        from lm_workbench.engine.progress import run_to_completion
        from lm_workbench.probing.runs import ProbeRun, StsRun
        from lm_workbench.probing.scalar_mix_runs import ScalarMixRun
        from lm_workbench.probing.spec import ScalarMixSpec

        state = _state(run)
        if which == "mix":
            probe = state.probe_params(run.model)
            computed = ScalarMixRun(ScalarMixSpec(**probe.to_dict(),
                                                  steps=int(run.settings.get("mix_steps", DEFAULT_MIX_STEPS))).checked())
        elif which == "probe":
            computed = ProbeRun(state.probe_params(run.model))
        else:
            computed = StsRun(state.sts_params(run.model))
        return run_to_completion(computed.compute(run.loaded, computed.read()))

    return run.once(which, build)


def _at(layers: list[int], values: list[float], layer: int) -> float | None:
    if layer < 0:
        layer = layers[-1] + 1 + layer
    if layer not in layers:
        raise WorkbenchError(f"there is no layer {layer} (layers {layers[0]}..{layers[-1]})")
    return finite(values[layers.index(layer)])


def mix_weight(run: StepRun, args: dict[str, Any]) -> float | None:
    mix = _compute(run, "mix")
    return _at(list(mix.layers), list(mix.result.weights), int_arg(args, "layer"))


def _probe(field: str) -> Any:
    def value(run: StepRun, args: dict[str, Any]) -> float | None:
        result = _compute(run, "probe")
        return _at(list(result.layers), list(getattr(result, field)), int_arg(args, "layer"))

    return value


def best_layer(run: StepRun, args: dict[str, Any]) -> float:
    """The layer with the highest probe accuracy (the first of ties)."""
    result = _compute(run, "probe")
    return float(result.layers[max(range(len(result.layers)), key=lambda i: result.accuracy[i])])


def sts(run: StepRun, args: dict[str, Any]) -> float | None:
    result = _compute(run, "sts")
    return _at(list(result.layers), list(result.spearman), int_arg(args, "layer"))


LAYER = {"layer": "0 the embeddings (ELMo: the character CNN), 1..L the layers; -1 the last"}
METRICS = metrics_of(
    "probing",
    Metric("mix_weight", mix_weight, "the scalar mix's learned weight of one layer", LAYER, ("layer",)),
    Metric("expected_layer", lambda run, args: finite(_compute(run, "mix").result.expected_layer),
           "the mix's expected layer, sum of j × weight_j (Tenney et al. 2019)"),
    Metric("mix_accuracy", lambda run, args: finite(_compute(run, "mix").result.accuracy),
           "the mixed probe's held-out accuracy"),
    Metric("accuracy", _probe("accuracy"), "the probe's held-out accuracy at one layer", LAYER, ("layer",)),
    Metric("control_accuracy", _probe("control_accuracy"), "the control task's accuracy at one layer", LAYER,
           ("layer",)),
    Metric("selectivity", _probe("selectivity"), "accuracy − control accuracy at one layer", LAYER, ("layer",)),
    Metric("best_layer", best_layer, "the layer whose probe is most accurate"),
    Metric("majority", lambda run, args: finite(_compute(run, "probe").majority), "the majority-class baseline"),
    Metric("sts", sts, "Spearman's rho of the STS pairs at one layer", LAYER, ("layer",)),
)
