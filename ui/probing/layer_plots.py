"""The Probing tab's two plots: probe accuracy, control accuracy and selectivity per layer; STS per layer."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QWidget

from ui import theme


def style() -> dict[str, Any]:
    """Every colour and size the plots use, in one place: colours from ``ui.theme``, sizes as the Embeddings
    tab's layer sweep draws them (when the theme's names change, only this function changes)."""
    return {"accuracy": theme.HOVER_BORDER, "control": theme.SEGMENT_B[1], "selectivity": theme.SEGMENT_A[2],
            "majority": theme.TOKEN_ID, "sts": theme.WARNING[2], "legend": theme.SPECIAL[2], "background": "w",
            "line": 2, "thin_line": 1, "symbol": 7, "min_height": 220}


def _plot(left: str, s: dict[str, Any]) -> pg.PlotWidget:
    plot = pg.PlotWidget(background=s["background"])
    plot.setMinimumHeight(s["min_height"])
    item = plot.getPlotItem()
    item.setMenuEnabled(False)
    item.hideButtons()
    item.showGrid(x=False, y=True, alpha=0.25)
    item.setLabel("bottom", "layer")
    item.setLabel("left", left)
    item.getAxis("left").enableAutoSIPrefix(False)
    item.addLegend(offset=(10, 5), labelTextColor=s["legend"])
    return plot


def _curve(plot: pg.PlotWidget, s: dict[str, Any], colour: str, name: str, symbol: str = "o",
           style_: Any = Qt.PenStyle.SolidLine) -> Any:
    return plot.getPlotItem().plot([], [], pen=pg.mkPen(s[colour], width=s["line"], style=style_), symbol=symbol,
                                   symbolSize=s["symbol"], symbolBrush=s[colour], symbolPen=None, name=name)


def _layer_ticks(plot: pg.PlotWidget, x: np.ndarray) -> None:
    plot.getPlotItem().getAxis("bottom").setTicks([[(v, str(int(v))) for v in x]])


class LayerPlots(QWidget):
    """Both plots side by side; ``show_probe`` / ``show_sts`` redraw from a ``ProbingState``."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        s = style()
        self.probe_plot = _plot("accuracy", s)
        self.accuracy_curve = _curve(self.probe_plot, s, "accuracy", "task accuracy")
        self.control_curve = _curve(self.probe_plot, s, "control", "control accuracy", "s")
        self.selectivity_curve = _curve(self.probe_plot, s, "selectivity", "selectivity", "t", Qt.PenStyle.DashLine)
        self.majority_curve = self.probe_plot.getPlotItem().plot(
            [], [], pen=pg.mkPen(s["majority"], width=s["thin_line"], style=Qt.PenStyle.DotLine),
            name="majority class")
        self.sts_plot = _plot("Spearman's rho", s)
        self.sts_curve = _curve(self.sts_plot, s, "sts", "STS (cosine vs gold)")
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
            _layer_ticks(self.probe_plot, x)
            self.probe_plot.setYRange(min(0.0, float(np.nanmin(rows))) - 0.05, 1.25, padding=0)

    def show_sts(self, state: Any) -> None:
        layers = sorted(state.sts_layers)
        x = np.asarray(layers, dtype=float)
        values = np.asarray([state.sts_layers[k] for k in layers], dtype=float)
        defined = np.isfinite(values)  # rho is undefined where a layer's vectors are all alike
        self.sts_curve.setData(x[defined], values[defined])
        if len(x):
            _layer_ticks(self.sts_plot, x)
            low = float(values[defined].min()) if defined.any() else 0.0
            self.sts_plot.setYRange(min(0.0, low) - 0.05, 1.05, padding=0)
