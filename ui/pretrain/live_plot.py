"""The training view's live curves: loss with validation loss, learning rate, tokens per second.

Three pyqtgraph plots stacked, sharing the step axis. New metric rows come
in from the store poll (only rows newer than the last one seen); each curve
keeps a growing buffer (``ui.run_tracking.series``) and is updated in place with
``setData`` on the buffer's filled part, so nothing is cleared or rebuilt
while a run writes. Downsampling and clip-to-view keep long runs cheap.
"""

from __future__ import annotations

from typing import Iterable

import pyqtgraph as pg
from PySide6.QtWidgets import QVBoxLayout, QWidget

from ui import theme
from ui.run_tracking.metrics_reader import MetricRow
from ui.run_tracking.series import RunSeries

# metric name -> (plot key, colour token, draws symbols)
CURVES = {
    "loss": ("loss", "train_loss_curve", False),
    "validation_loss": ("loss", "valid_loss_curve", True),
    "lr": ("lr", "lr_curve", False),
    "tokens_per_s": ("speed", "speed_curve", False),
}


class LivePlot(QWidget):
    """Loss / learning rate / throughput of one run, appended to as it trains."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        pg.setConfigOptions(antialias=True)
        self.graphics = pg.GraphicsLayoutWidget()
        self.plots: dict[str, pg.PlotItem] = {}
        for row, key in enumerate(("loss", "lr", "speed")):
            plot = self.graphics.addPlot(row=row, col=0)
            plot.showGrid(x=True, y=True, alpha=0.15)
            plot.setDownsampling(auto=True, mode="peak")
            plot.setClipToView(True)
            if key != "speed":
                plot.getAxis("bottom").setStyle(showValues=False)
            else:
                plot.setLabel("bottom", "step")
            self.plots[key] = plot
        self.plots["lr"].setXLink(self.plots["loss"])
        self.plots["speed"].setXLink(self.plots["loss"])
        layout_ = self.graphics.ci.layout
        for row, stretch in enumerate((3, 1, 1)):
            layout_.setRowStretchFactor(row, stretch)
        self.items: dict[str, pg.PlotDataItem] = {}
        self.run: RunSeries | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.graphics)
        self._apply_tokens()
        theme.follow(self, self._apply_tokens)

    def _apply_tokens(self) -> None:
        c, f = theme.current().colours, theme.current().fonts
        self.graphics.setBackground(c.base_bg)
        titles = {"loss": f'Loss (nats per token): <span style="color:{c.train_loss_curve}">training</span> and '
                          f'<span style="color:{c.valid_loss_curve}">validation</span>',
                  "lr": "Learning rate", "speed": "Tokens per second"}
        for key, plot in self.plots.items():
            plot.setTitle(titles[key], size=f"{f.pt(f.live_plot_title_delta):g}pt", color=c.label_ink)
            plot.getAxis("left").setWidth(theme.current().metrics.plot_axis_w)
        for name, item in self.items.items():
            self._style(name, item)

    def _style(self, name: str, item: pg.PlotDataItem) -> None:
        c, m = theme.current().colours, theme.current().metrics
        colour = getattr(c, CURVES[name][1])
        item.setPen(pg.mkPen(colour, width=m.plot_line_width if name == "loss" else m.plot_thin_line_width))
        if CURVES[name][2]:
            item.setSymbol("o")
            item.setSymbolSize(m.live_plot_symbol)
            item.setSymbolBrush(colour)
            item.setSymbolPen(None)

    # ----------------------------------------------------------------- API
    def start(self, run_id: int) -> None:
        """Forget the shown curves and follow ``run_id``."""
        for item in self.items.values():
            self.plots[CURVES[self._name_of(item)][0]].removeItem(item)
        self.items = {}
        self.run = RunSeries(run_id)

    def add_rows(self, rows: Iterable[MetricRow]) -> None:
        """Append new store rows (of the followed run) to their curves."""
        if self.run is None:
            return
        for name in self.run.add_rows(rows):
            if name in CURVES:
                self._update(name)

    def point_count(self, name: str) -> int:
        """How many points the curve of ``name`` has (0 when none)."""
        item = self.items.get(name)
        return 0 if item is None or item.xData is None else len(item.xData)

    # -------------------------------------------------------------- helpers
    def _name_of(self, item: pg.PlotDataItem) -> str:
        return next(n for n, i in self.items.items() if i is item)

    def _update(self, name: str) -> None:
        series = self.run.get(name)
        item = self.items.get(name)
        if item is None:
            item = self.plots[CURVES[name][0]].plot()
            self._style(name, item)
            self.items[name] = item
        item.setData(series.steps, series.values)
