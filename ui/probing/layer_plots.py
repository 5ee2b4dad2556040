"""The Probing tab's two plots: probe accuracy, control accuracy and selectivity per layer; STS per layer."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from lm_workbench.ui import theme
from lm_workbench.ui.widgets.boxes import row
from lm_workbench.ui.widgets.plain_plot import plain_plot_item


def style() -> dict[str, Any]:
    """Every colour and size the plots use, in one place, from the current theme tokens."""
    c, m = theme.current().colours, theme.current().metrics
    return {"accuracy": c.hover, "control": c.segment_b.border, "selectivity": c.segment_a.ink,
            "majority": c.token_id_ink, "sts": c.warning.ink, "legend": c.special_token.ink, "background": c.base_bg,
            "line": m.plot_line_width, "thin_line": m.plot_thin_line_width, "symbol": m.plot_small_symbol,
            "min_height": m.layer_plot_min_h}


def _plot(left: str, s: dict[str, Any]) -> pg.PlotWidget:
    plot = pg.PlotWidget(background=s["background"])
    plot.setMinimumHeight(s["min_height"])
    item = plain_plot_item(plot, "layer", left, si_prefix=False)
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
        self.mix_plot = _plot("scalar-mix weight", s)
        self.mix_plot.setVisible(False)  # until a mix is learned
        self._mix_items: list[Any] = []
        self._mix_state: Any = None
        row((self.probe_plot, 3), (self.sts_plot, 2), (self.mix_plot, 2), owner=self)
        theme.follow(self, self._restyle)

    def show_mix(self, state: Any) -> None:
        """One group of bars per layer, a bar per task, and a dashed line at each task's expected layer."""
        self._mix_state = state
        item = self.mix_plot.getPlotItem()
        for old in self._mix_items:
            item.removeItem(old)
        self._mix_items = []
        if item.legend is not None:
            item.legend.clear()
        self.mix_plot.setVisible(bool(state.mixes))
        colours = theme.current().colours.run_curves
        n = max(1, len(state.mixes))
        width = 0.8 / n
        for i, (label, weights) in enumerate(state.mixes.items()):
            colour = colours[i % len(colours)]
            x = np.arange(len(weights), dtype=float) - 0.4 + width * (i + 0.5)
            bars = pg.BarGraphItem(x=x, height=weights, width=width, brush=colour, pen=None)
            expected = state.expected_layer(label)
            line = pg.InfiniteLine(pos=expected, angle=90, pen=pg.mkPen(colour, width=style()["thin_line"],
                                                                         style=Qt.PenStyle.DashLine))
            for added in (bars, line):
                item.addItem(added)
                self._mix_items.append(added)
            if item.legend is not None:
                item.legend.addItem(bars, f"{label} · E = {expected:.2f}")
        if state.mixes:
            _layer_ticks(self.mix_plot, np.arange(max(len(w) for w in state.mixes.values()), dtype=float))

    def _restyle(self) -> None:
        """A token swap: new background, pens and markers (the data stay)."""
        s = style()
        for plot in (self.probe_plot, self.sts_plot, self.mix_plot):
            plot.setBackground(s["background"])
            plot.setMinimumHeight(s["min_height"])
        for curve, key, pen_style in ((self.accuracy_curve, "accuracy", Qt.PenStyle.SolidLine),
                                      (self.control_curve, "control", Qt.PenStyle.SolidLine),
                                      (self.selectivity_curve, "selectivity", Qt.PenStyle.DashLine),
                                      (self.sts_curve, "sts", Qt.PenStyle.SolidLine)):
            curve.setPen(pg.mkPen(s[key], width=s["line"], style=pen_style))
            curve.setSymbolBrush(s[key])
            curve.setSymbolSize(s["symbol"])
        self.majority_curve.setPen(pg.mkPen(s["majority"], width=s["thin_line"], style=Qt.PenStyle.DotLine))
        if self._mix_state is not None:
            self.show_mix(self._mix_state)

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
