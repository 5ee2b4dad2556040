"""The Fine-tune tab's curves: loss and the task's validation metric of one or several runs as they train.

Two panels of the shared run-curve widget (``lm_workbench.ui.widgets.run_curves``) sharing
the step axis: training loss (a line) with validation loss (dots), and the
task's validation metric (accuracy, F1, ROUGE-L ...). Each run gets a colour
of the theme's ``run_curves`` and a legend entry (its method), so the bench's
runs overlay on the same axes.

Preference tuning (DPO) adds a third panel between them, the reward margin, and its metric panel is the preference
accuracy; each of loss, margin and accuracy as a line per training step (its batch) and dots per evaluation (the
held-out pairs). The margin panel is hidden for every other task.
"""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from lm_workbench.engine.finetune.names import PRIMARY_METRIC
from lm_workbench.ui.widgets.run_curves import CurveLook, RunCurves

LOOKS = {"loss": CurveLook(line="thin", legend=True), "validation_loss": CurveLook(line=None, dots=True)}
METRIC_LOOK = CurveLook(dots=True)
STEP_LOOK = CurveLook(line="thin")  # a preference run's per-step margin and accuracy (its batch)
HELD_OUT_LOOK = CurveLook(line=None, dots=True)  # ... and on the held-out pairs at each evaluation
# preference tuning: metric -> (panel, look)
PREFERENCE_ROUTES = {
    "reward_margin": ("margin", STEP_LOOK), "validation_reward_margin": ("margin", HELD_OUT_LOOK),
    "preference_accuracy": ("metric", STEP_LOOK), "validation_preference_accuracy": ("metric", HELD_OUT_LOOK),
}


class FineTuneCurves(RunCurves):
    """Curves of the runs added with ``add_run``; ``metric_name`` is the validation metric plotted."""

    metric_name = "accuracy"
    task = ""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__((("loss", 1), ("margin", 1), ("metric", 1)), self._route, titles=self._titles,
                         legend_panel="loss", parent=parent)
        self._show_margin(False)

    def _route(self, name: str) -> tuple[str, CurveLook] | None:
        if name in LOOKS:
            return "loss", LOOKS[name]
        if self.task == "preference":
            return PREFERENCE_ROUTES.get(name)
        return ("metric", METRIC_LOOK) if name == self.metric_name else None

    def _titles(self) -> dict[str, str]:
        if self.task == "preference":
            # <wbr>: where a title breaks on a narrow panel (unbroken, the widest pushed the panels, and the
            # legend in their top right corner, past the tab's right edge: issue 49, cosmetic)
            return {"loss": "DPO loss: training (line)<wbr> and held-out pairs (dots)",
                    "margin": "Reward margin β·(chosen − rejected log-ratio):<wbr> training (line), held-out (dots)",
                    "metric": "DPO reward accuracy: pairs that tuning moved towards the chosen answer<wbr> (positive "
                              "margin; 0 at step 0). Not the note's 'preferred before → after'"}
        return {"loss": "Loss: training (line) and validation (dots)", "metric": f"Validation {self.metric_name}"}

    def _show_margin(self, shown: bool) -> None:
        plot = self.plots["margin"]
        plot.setVisible(shown)
        self.graphics.ci.layout.setRowStretchFactor(1, 1 if shown else 0)
        self.graphics.ci.layout.setRowMaximumHeight(1, 1e6 if shown else 0)
        self.graphics.ci.layout.setRowSpacing(0, 0)

    def clear(self, task: str | None = None) -> None:
        """Forget the runs; with ``task``, plot that task's main metric from now on."""
        super().clear()
        if task is not None:
            self.task = task
            self.metric_name = PRIMARY_METRIC.get(task, "accuracy")
            self._show_margin(task == "preference")
            self.retitle()
