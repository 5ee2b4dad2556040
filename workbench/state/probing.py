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

from workbench.probing.runs import POOLINGS, TASK_KINDS, probe_params, sts_params
from workbench.state.observable import EventGroup

DEMO = "demo"
PROBE_COLUMNS = ["layer", "accuracy", "control_accuracy", "selectivity"]


class ProbingState:
    def __init__(self) -> None:
        self.events = EventGroup("choices_changed", "probe_changed", "sts_changed")
        self.task = DEMO  # a file path, or "demo" (the built-in POS set)
        self.kind = "token"
        self.pooling = "mean"
        self.seed = 0
        self.sts_data = DEMO
        self.probe_layers: dict[int, tuple[float, float, float]] = {}  # layer -> (accuracy, control, selectivity)
        self.majority: float | None = None
        self.probe_run_id: int | None = None
        self.sts_layers: dict[int, float] = {}  # layer -> Spearman's rho
        self.sts_pooling: str | None = None
        self.sts_run_id: int | None = None

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

    def probe_params(self, model: str) -> dict[str, Any]:
        return probe_params(model, self.task, self.kind, self.pooling, self.seed)

    def sts_params(self, model: str) -> dict[str, Any]:
        return sts_params(model, self.sts_data, self.pooling)

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
        self.sts_layers, self.sts_pooling, self.sts_run_id = {}, None, None
        self.events.sts_changed.emit()

    def add_sts_layer(self, layer: int, rho: float) -> None:
        self.sts_layers[int(layer)] = rho
        self.events.sts_changed.emit()

    def finish_sts(self, result: Any, run_id: int | None) -> None:
        self.sts_layers = dict(zip(result.layers, result.spearman))
        self.sts_pooling, self.sts_run_id = result.pooling, run_id
        self.events.sts_changed.emit()

    # -- export ---------------------------------------------------------------------------------------
    def table(self) -> tuple[list[str], list[list[Any]]]:
        """Every layer's probing and STS numbers in one table (blank where a sweep did not run)."""
        layers = sorted(set(self.probe_layers) | set(self.sts_layers))
        rows = []
        for layer in layers:
            probe = self.probe_layers.get(layer, ("", "", ""))
            rows.append([layer, *probe, self.majority if layer in self.probe_layers else "",
                         self.sts_layers.get(layer, "")])
        return [*PROBE_COLUMNS, "majority", "sts_spearman"], rows
