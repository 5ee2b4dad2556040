"""Loss and validation-metric curves of one or several fine-tuning runs, appended to as they train.

Two pyqtgraph plots sharing the step axis: training loss (a line) with
validation loss (dots), and the task's validation metric (accuracy, F1,
ROUGE-L ...). Each run gets a colour of the theme's ``run_curves`` and a
legend entry (its method), so the bench's runs overlay on the same axes.
Rows come from the store poll (``ui.run_tracking``); curves are updated in
place.
"""

from __future__ import annotations

from typing import Iterable

import pyqtgraph as pg
from PySide6.QtWidgets import QVBoxLayout, QWidget

from ui import theme
from ui.run_tracking.metrics_reader import MetricRow
from ui.run_tracking.series import RunSeries
from workbench.finetune.state import MAIN_METRIC

LOSSES = ("loss", "validation_loss")
TASK_METRICS = ("accuracy", "f1", "mcc", "exact_match", "rouge1", "rouge2", "rougeL")


class RunCurves(QWidget):
    """Curves of the runs added with ``add_run``; ``metric_name`` is the validation metric plotted."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.graphics = pg.GraphicsLayoutWidget()
        self.loss_plot = self.graphics.addPlot(row=0, col=0)
        self.metric_plot = self.graphics.addPlot(row=1, col=0)
        self.metric_plot.setXLink(self.loss_plot)
        self.metric_plot.setLabel("bottom", "step")
        for plot in (self.loss_plot, self.metric_plot):
            plot.showGrid(x=True, y=True, alpha=0.15)
        self.legend = self.loss_plot.addLegend(offset=(-1, 1))  # the top right corner
        self.runs: dict[int, RunSeries] = {}
        self.labels: dict[int, str] = {}
        self.items: dict[tuple[int, str], pg.PlotDataItem] = {}
        self.metric_name = "accuracy"
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.graphics)
        self._apply_tokens()
        theme.follow(self, self._apply_tokens)

    def _apply_tokens(self) -> None:
        c, f, m = theme.current().colours, theme.current().fonts, theme.current().metrics
        self.graphics.setBackground(c.base_bg)
        size = f"{f.pt(f.live_plot_title_delta):g}pt"
        self.loss_plot.setTitle("Loss: training (line) and validation (dots)", size=size, color=c.label_ink)
        self.metric_plot.setTitle(f"Validation {self.metric_name}", size=size, color=c.label_ink)
        for plot in (self.loss_plot, self.metric_plot):
            plot.getAxis("left").setWidth(m.plot_axis_w)
        self.legend.setLabelTextColor(c.plot_legend_ink)
        self.legend.setBrush(pg.mkBrush(*c.plot_legend_bg))
        for (run_id, name), item in self.items.items():
            self._style(run_id, name, item)

    def _colour(self, run_id: int) -> str:
        colours = theme.current().colours.run_curves
        return colours[list(self.runs).index(run_id) % len(colours)]

    def _style(self, run_id: int, name: str, item: pg.PlotDataItem) -> None:
        m = theme.current().metrics
        colour = self._colour(run_id)
        if name == "loss":
            item.setPen(pg.mkPen(colour, width=m.plot_thin_line_width))
        else:
            item.setPen(pg.mkPen(colour, width=m.plot_line_width) if name != "validation_loss" else None)
            item.setSymbol("o")
            item.setSymbolSize(m.live_plot_symbol)
            item.setSymbolBrush(colour)
            item.setSymbolPen(None)

    # ----------------------------------------------------------------- API
    def clear(self, task: str | None = None) -> None:
        for (_, name), item in self.items.items():
            (self.loss_plot if name in LOSSES else self.metric_plot).removeItem(item)
        self.legend.clear()
        self.items, self.runs, self.labels = {}, {}, {}
        if task is not None:
            self.metric_name = MAIN_METRIC.get(task, "accuracy")
            self._apply_tokens()

    def add_run(self, run_id: int, label: str) -> None:
        if run_id not in self.runs:
            self.runs[run_id] = RunSeries(run_id)
            self.labels[run_id] = label

    def add_rows(self, run_id: int, rows: Iterable[MetricRow]) -> None:
        series = self.runs.get(run_id)
        if series is None:
            return
        for name in series.add_rows(rows):
            if name in LOSSES or name == self.metric_name:
                self._update(run_id, name)

    def point_count(self, run_id: int, name: str) -> int:
        item = self.items.get((run_id, name))
        return 0 if item is None or item.xData is None else len(item.xData)

    def data(self, run_id: int, name: str) -> tuple[list[float], list[float]]:
        item = self.items.get((run_id, name))
        if item is None or item.xData is None:
            return [], []
        return list(item.xData), list(item.yData)

    def _update(self, run_id: int, name: str) -> None:
        series = self.runs[run_id].get(name)
        item = self.items.get((run_id, name))
        if item is None:
            plot = self.loss_plot if name in LOSSES else self.metric_plot
            item = plot.plot(name=self.labels[run_id] if name == "loss" else None)
            self._style(run_id, name, item)
            self.items[(run_id, name)] = item
        item.setData(series.steps, series.values)
