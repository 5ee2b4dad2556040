"""The Pre-train tab's live curves: loss with validation loss, learning rate, tokens per second.

Three panels of the shared run-curve widget (``lm_workbench.ui.widgets.run_curves``),
stacked and sharing the step axis, following one run at a time: new metric
rows come in from the store poll and each curve is updated in place, so
nothing is cleared or rebuilt while a run writes.
"""

from __future__ import annotations

from typing import Iterable

import pyqtgraph as pg
from PySide6.QtWidgets import QWidget

from lm_workbench.ui import theme
from lm_workbench.store.metrics_reader import MetricRow
from lm_workbench.ui.widgets.run_curves import CurveLook, RunCurves
from lm_workbench.ui.widgets.boxes import flush_column

# metric name -> (panel, look)
CURVES = {
    "loss": ("loss", CurveLook(colour="train_loss_curve")),
    "validation_loss": ("loss", CurveLook(colour="valid_loss_curve", line="thin", dots=True)),
    "lr": ("lr", CurveLook(colour="lr_curve", line="thin")),
    "tokens_per_s": ("speed", CurveLook(colour="speed_curve", line="thin")),
}


def _titles() -> dict[str, str]:
    c = theme.current().colours
    return {"loss": f'Loss (nats per token): <wbr><span style="color:{c.train_loss_curve}">training</span> and '
                    f'<span style="color:{c.valid_loss_curve}">validation</span>',
            "lr": "Learning rate", "speed": "Tokens per second"}


class LivePlot(QWidget):
    """Loss / learning rate / throughput of one run, appended to as it trains."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.curves = RunCurves((("loss", 3), ("lr", 1), ("speed", 1)), CURVES.get, titles=_titles)
        self.plots = self.curves.plots
        self.run_id: int | None = None
        flush_column(self, self.curves)

    def start(self, run_id: int) -> None:
        """Forget the shown curves and follow ``run_id``."""
        self.curves.clear()
        self.curves.add_run(run_id)
        self.run_id = run_id

    def add_rows(self, rows: Iterable[MetricRow]) -> None:
        """Append new store rows (of the followed run) to their curves."""
        if self.run_id is not None:
            self.curves.add_rows(self.run_id, rows)

    @property
    def items(self) -> dict[str, pg.PlotDataItem]:
        """The curve of each metric drawn, by name."""
        return {key[1]: item for key, item in self.curves.items.items() if key == (self.run_id, key[1])}

    def point_count(self, name: str) -> int:
        """How many points the curve of ``name`` has (0 when none)."""
        return 0 if self.run_id is None else self.curves.point_count(self.run_id, name)
