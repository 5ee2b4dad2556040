"""What the Probing tab shows, as a plain object: the choices, and the per-layer results so far.

The tab's widgets change a ``ProbingState`` only through its methods and
repaint on its events, so a sweep's flow (choose, start, a layer at a time,
done) can be driven and checked without Qt.

Events (arguments in brackets):
- ``choices_changed`` []: the task, kind, pooling, seed or STS data changed.
- ``probe_changed`` []: probing results were cleared or a layer came in.
- ``sts_changed`` []: STS results were cleared or a layer came in.
"""

from __future__ import annotations

from typing import Any

from lm_workbench.probing.spec import POOLINGS, TASK_KINDS, ProbeSpec, StsSpec
from lm_workbench.observable import EventGroup

DEMO = "demo"
PROBE_COLUMNS = ["layer", "accuracy", "control_accuracy", "selectivity"]


class ProbingState:
    def __init__(self) -> None:
        self.events = EventGroup("choices_changed", "probe_changed", "sts_changed", "mix_changed")
        self.task = DEMO  # a file path, or "demo" (the built-in POS set)
        self.kind = "token"
        self.pooling = "mean"
        self.seed = 0
        self.sts_data = DEMO
        self.probe_layers: dict[int, tuple[float, float, float]] = {}  # layer -> (accuracy, control, selectivity)
        self.majority: float | None = None
        self.probe_run_id: int | None = None
        self.sts_layers: dict[int, float | None] = {}  # layer -> Spearman's rho (None: not defined there)
        self.sts_notes: list[str] = []  # why a layer's rho is not defined
        self.sts_pooling: str | None = None
        self.sts_run_id: int | None = None
        self.mixes: dict[str, list[float]] = {}  # task label -> learned scalar-mix weights, layer 0..L
        self.mix_run_ids: dict[str, int] = {}

    # -- choices -------------------------------------------------------------------------------------
    def set_task(self, task: str, kind: str | None = None) -> None:
        """A task file (or ``demo``, a token task); ``kind`` token / sentence when given."""
        self.task = str(task) or DEMO
        if kind is not None:
            self.set_kind(kind)
        if self.task == DEMO:
            self.kind = "token"
        self.events.choices_changed.emit()

    def set_kind(self, kind: str) -> None:
        if kind not in TASK_KINDS:
            raise ValueError(f"kind must be one of {TASK_KINDS}")
        self.kind = kind
        self.events.choices_changed.emit()

    def set_pooling(self, pooling: str) -> None:
        if pooling not in POOLINGS:
            raise ValueError(f"pooling must be one of {POOLINGS}")
        self.pooling = pooling
        self.events.choices_changed.emit()

    def set_sts_data(self, data: str) -> None:
        self.sts_data = str(data) or DEMO
        self.events.choices_changed.emit()

    def probe_params(self, model: str) -> ProbeSpec:
        return ProbeSpec(model, self.task, self.kind, self.pooling, self.seed).checked()

    def sts_params(self, model: str) -> StsSpec:
        return StsSpec(model, self.sts_data, self.pooling).checked()

    # -- probing results -----------------------------------------------------------------------------
    def clear_probe(self) -> None:
        self.probe_layers, self.majority, self.probe_run_id = {}, None, None
        self.events.probe_changed.emit()

    def add_probe_layer(self, layer: int, accuracy: float, control: float) -> None:
        self.probe_layers[int(layer)] = (accuracy, control, accuracy - control)
        self.events.probe_changed.emit()

    def finish_probe(self, result: Any, run_id: int | None) -> None:
        """The whole ``ProbeResult`` (it replaces the partial layers) and the run it was stored as."""
        self.probe_layers = {layer: (a, c, s) for layer, a, c, s in zip(
            result.layers, result.accuracy, result.control_accuracy, result.selectivity)}
        self.majority, self.probe_run_id = result.majority, run_id
        self.events.probe_changed.emit()

    # -- STS results ---------------------------------------------------------------------------------
    def clear_sts(self) -> None:
        self.sts_layers, self.sts_pooling, self.sts_run_id, self.sts_notes = {}, None, None, []
        self.events.sts_changed.emit()

    def add_sts_layer(self, layer: int, rho: float | None) -> None:
        self.sts_layers[int(layer)] = _defined(rho)
        self.events.sts_changed.emit()

    def finish_sts(self, result: Any, run_id: int | None) -> None:
        self.sts_layers = {int(k): _defined(v) for k, v in zip(result.layers, result.spearman)}
        self.sts_notes = list(getattr(result, "notes", []))
        self.sts_pooling, self.sts_run_id = result.pooling, run_id
        self.events.sts_changed.emit()

    def sts_undefined_lines(self) -> list[str]:
        """``Spearman at layer 0: not defined (every pair has the same cosine …)``, one per layer without a rho."""
        from lm_workbench.engine.maths.undefined import reasons
        from lm_workbench.engine.probing.sweep import sts_metric

        why = reasons(self.sts_notes)
        return [f"Spearman at layer {layer}: not defined ({why.get(sts_metric(layer), 'no spread to correlate')})"
                for layer, rho in sorted(self.sts_layers.items()) if rho is None]

    # -- scalar mix ----------------------------------------------------------------------------------
    def task_label(self) -> str:
        """How the current task is named in the scalar-mix chart's legend."""
        from pathlib import Path

        return "POS (demo)" if self.task == DEMO else f"{Path(self.task).stem} ({self.kind})"

    def clear_results(self) -> None:
        """Every layer's numbers and the mixes gone (another model was loaded)."""
        self.mixes = {}
        self.events.mix_changed.emit()
        self.clear_probe()
        self.clear_sts()

    def set_mix(self, label: str, weights: list[float], run_id: int | None = None) -> None:
        """The mix learned (so far, or finally with its run) for the task called ``label``; other tasks' stay."""
        self.mixes[label] = [float(w) for w in weights]
        if run_id is not None:
            self.mix_run_ids[label] = run_id
        self.events.mix_changed.emit()

    def expected_layer(self, label: str) -> float:
        """``sum_j j * s_j`` of that task's weights (Tenney et al. 2019)."""
        return float(sum(j * w for j, w in enumerate(self.mixes[label])))

    # -- export ---------------------------------------------------------------------------------------
    def table(self) -> tuple[list[str], list[list[Any]]]:
        """Every layer's probing and STS numbers in one table (blank where a sweep did not run)."""
        layers = sorted(set(self.probe_layers) | set(self.sts_layers))
        rows = []
        for layer in layers:
            probe = self.probe_layers.get(layer, ("", "", ""))
            rho = self.sts_layers.get(layer, "")
            rows.append([layer, *probe, self.majority if layer in self.probe_layers else "",
                         "not defined" if rho is None else rho])
        return [*PROBE_COLUMNS, "majority", "sts_spearman"], rows


def _defined(value: Any) -> float | None:
    """A rho as a float, or None where it is not defined (None or NaN)."""
    from lm_workbench.engine.maths.undefined import value as number

    return number(value)
