"""The Fine-tune tab's curves: loss and the task's validation metric of one or several runs as they train.

Two panels of the shared run-curve widget (``ui.widgets.run_curves``) sharing
the step axis: training loss (a line) with validation loss (dots), and the
task's validation metric (accuracy, F1, ROUGE-L ...). Each run gets a colour
of the theme's ``run_curves`` and a legend entry (its method), so the bench's
runs overlay on the same axes.
"""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from engine.finetune.names import PRIMARY_METRIC
from ui.widgets.run_curves import CurveLook, RunCurves

LOOKS = {"loss": CurveLook(line="thin", legend=True), "validation_loss": CurveLook(line=None, dots=True)}
METRIC_LOOK = CurveLook(dots=True)


class FineTuneCurves(RunCurves):
    """Curves of the runs added with ``add_run``; ``metric_name`` is the validation metric plotted."""

    metric_name = "accuracy"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__((("loss", 1), ("metric", 1)), self._route, titles=self._titles, legend_panel="loss",
                         parent=parent)

    def _route(self, name: str) -> tuple[str, CurveLook] | None:
        if name in LOOKS:
            return "loss", LOOKS[name]
        return ("metric", METRIC_LOOK) if name == self.metric_name else None

    def _titles(self) -> dict[str, str]:
        return {"loss": "Loss: training (line) and validation (dots)", "metric": f"Validation {self.metric_name}"}

    def clear(self, task: str | None = None) -> None:
        """Forget the runs; with ``task``, plot that task's main metric from now on."""
        super().clear()
        if task is not None:
            self.metric_name = PRIMARY_METRIC.get(task, "accuracy")
            self.retitle()
