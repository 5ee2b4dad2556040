"""The Probing tab's two plots: probe accuracy, control accuracy and selectivity per layer; STS per layer."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QWidget

from ui import theme


def _plot(left: str) -> pg.PlotWidget:
    plot = pg.PlotWidget(background="w")
    plot.setMinimumHeight(220)
    item = plot.getPlotItem()
    item.setMenuEnabled(False)
    item.hideButtons()
    item.showGrid(x=False, y=True, alpha=0.25)
    item.setLabel("bottom", "layer")
    item.setLabel("left", left)
    item.getAxis("left").enableAutoSIPrefix(False)
    return plot


def _curve(item: Any, colour: str, name: str, symbol: str = "o", style: Any = Qt.PenStyle.SolidLine) -> Any:
    return item.plot([], [], pen=pg.mkPen(colour, width=2, style=style), symbol=symbol, symbolSize=7,
                     symbolBrush=colour, symbolPen=None, name=name)


class LayerPlots(QWidget):
    """Both plots side by side; ``show_probe`` / ``show_sts`` redraw from a ``ProbingState``."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.probe_plot = _plot("accuracy")
        item = self.probe_plot.getPlotItem()
        item.addLegend(offset=(10, 5), labelTextColor=theme.SPECIAL[2])
        self.accuracy_curve = _curve(item, theme.HOVER_BORDER, "task accuracy")
        self.control_curve = _curve(item, theme.SEGMENT_B[1], "control accuracy", "s")
        self.selectivity_curve = _curve(item, theme.SEGMENT_A[2], "selectivity", "t", Qt.PenStyle.DashLine)
        self.majority_curve = item.plot([], [], pen=pg.mkPen(theme.TOKEN_ID, width=1, style=Qt.PenStyle.DotLine),
                                        name="majority class")
        self.sts_plot = _plot("Spearman's rho")
        sts_item = self.sts_plot.getPlotItem()
        sts_item.addLegend(offset=(10, 5), labelTextColor=theme.SPECIAL[2])
        self.sts_curve = _curve(sts_item, theme.WARNING[2], "STS (cosine vs gold)")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.probe_plot, 3)
        layout.addWidget(self.sts_plot, 2)

    def show_probe(self, state: Any) -> None:
        layers = sorted(state.probe_layers)
        x = np.asarray(layers, dtype=float)
        rows = np.asarray([state.probe_layers[k] for k in layers], dtype=float).reshape(-1, 3)
        self.accuracy_curve.setData(x, rows[:, 0])
        self.control_curve.setData(x, rows[:, 1])
        self.selectivity_curve.setData(x, rows[:, 2])
        if state.majority is not None and len(x):
            self.majority_curve.setData([x.min(), x.max()], [state.majority, state.majority])
        else:
            self.majority_curve.setData([], [])
        if len(x):
            self.probe_plot.getPlotItem().getAxis("bottom").setTicks([[(v, str(int(v))) for v in x]])
            self.probe_plot.setYRange(min(0.0, float(np.nanmin(rows))) - 0.05, 1.25, padding=0)

    def show_sts(self, state: Any) -> None:
        layers = sorted(state.sts_layers)
        x = np.asarray(layers, dtype=float)
        values = np.asarray([state.sts_layers[k] for k in layers], dtype=float)
        defined = np.isfinite(values)  # rho is undefined where a layer's vectors are all alike
        self.sts_curve.setData(x[defined], values[defined])
        if len(x):
            self.sts_plot.getPlotItem().getAxis("bottom").setTicks([[(v, str(int(v))) for v in x]])
            low = float(values[defined].min()) if defined.any() else 0.0
            self.sts_plot.setYRange(min(0.0, low) - 0.05, 1.05, padding=0)
