"""Curves of several runs on one plot: one metric, EMA smoothing, step or time axis, log scale.

The overlay keeps a ``RunSeries`` per shown run, fed with only the rows
written since the last read (``MetricsReader.rows_after``), so a refresh
while a run is active costs one small query per run. With smoothing on, the
raw curve stays visible, faint, behind the smoothed one (the smoothed value
at a point depends only on the points before it, so it never looks ahead).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QLabel, QSlider, QVBoxLayout, QWidget

from ui import theme
from ui.run_tracking.metrics_reader import MetricsReader
from ui.run_tracking.series import RunSeries, ema

DEFAULT_METRIC = "loss"
X_STEP, X_TIME = "step", "time"


def _legend_size() -> str:
    fonts = theme.current().fonts
    return f"{fonts.pt(fonts.run_legend_delta):g}pt"


class CurveOverlay(QWidget):
    """Overlaid curves of the selected runs."""

    options_changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.metric_combo = QComboBox()
        self.metric_combo.setToolTip("Which logged value to plot")
        self.metric_combo.setMinimumContentsLength(14)
        self.smooth_slider = QSlider(Qt.Orientation.Horizontal)
        self.smooth_slider.setRange(0, 99)
        self.smooth_slider.setValue(0)
        theme.bind(self, lambda w, m: w.smooth_slider.setFixedWidth(m.smooth_slider_w))
        self.smooth_slider.setToolTip("Exponential moving average: s_t = w s_(t-1) + (1 - w) v_t, bias-corrected; "
                                      "w from 0 (raw) to 0.99")
        self.smooth_label = QLabel("0.00")
        self.x_combo = QComboBox()
        self.x_combo.addItem("step", X_STEP)
        self.x_combo.addItem("time (s)", X_TIME)
        self.x_combo.setToolTip("Horizontal axis: the optimizer step, or seconds since the run's first value")
        self.log_check = QCheckBox("log scale")
        self.log_check.setToolTip("Logarithmic vertical axis")
        controls = QHBoxLayout()
        controls.setContentsMargins(0, 0, 0, 0)
        controls.addWidget(QLabel("Metric"))
        controls.addWidget(self.metric_combo)
        theme.bind(controls, lambda w, m: w.addSpacing(m.wide_spacing))
        controls.addWidget(QLabel("Smoothing"))
        controls.addWidget(self.smooth_slider)
        controls.addWidget(self.smooth_label)
        theme.bind(controls, lambda w, m: w.addSpacing(m.wide_spacing))
        controls.addWidget(QLabel("x"))
        controls.addWidget(self.x_combo)
        controls.addWidget(self.log_check)
        controls.addStretch(1)
        self.plot_widget = pg.PlotWidget(background=theme.current().colours.base_bg)
        self.plot = self.plot_widget.getPlotItem()
        self.plot.showGrid(x=True, y=True, alpha=0.15)
        self.plot.setDownsampling(auto=True, mode="peak")
        self.plot.setClipToView(True)
        self.legend = self.plot.addLegend(offset=(-10, 10), labelTextSize=_legend_size())
        self.hint = QLabel("Select runs in the table to overlay their curves (Ctrl- or Shift-click for several).")
        self.hint.setObjectName("summary")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        theme.bind(layout, lambda w, m: w.setSpacing(m.row_spacing))
        layout.addLayout(controls)
        # A plain QWidget around the plot: SVG export renders through QWidget.render, which a
        # QGraphicsView overrides with another signature.
        self.export_widget = QWidget()
        frame = QVBoxLayout(self.export_widget)
        frame.setContentsMargins(0, 0, 0, 0)
        frame.addWidget(self.plot_widget)
        layout.addWidget(self.export_widget, 1)
        layout.addWidget(self.hint)

        self.series: dict[int, RunSeries] = {}
        self.labels: dict[int, str] = {}
        self.order: list[int] = []
        self.curves: dict[int, pg.PlotDataItem] = {}
        self.raw_curves: dict[int, pg.PlotDataItem] = {}
        theme.follow(self, self._apply_tokens)
        self.metric_combo.currentIndexChanged.connect(lambda *_: self.redraw())
        self.smooth_slider.valueChanged.connect(self._smoothing_changed)
        self.x_combo.currentIndexChanged.connect(lambda *_: self.redraw())
        self.log_check.toggled.connect(self._log_changed)
        self._axis_labels()

    # ----------------------------------------------------------------- API
    @property
    def metric(self) -> str:
        return self.metric_combo.currentData() or DEFAULT_METRIC

    @property
    def smoothing(self) -> float:
        return self.smooth_slider.value() / 100.0

    def set_smoothing(self, weight: float) -> None:
        self.smooth_slider.setValue(int(round(weight * 100)))

    def set_runs(self, runs: list[tuple[int, str]], reader: MetricsReader) -> None:
        """Show these runs (id, label) in this order; reads what is new for each."""
        ids = [run_id for run_id, _ in runs]
        for run_id in list(self.series):
            if run_id not in ids:
                del self.series[run_id]
        self.labels = dict(runs)
        self.order = ids
        for run_id in ids:
            self.series.setdefault(run_id, RunSeries(run_id))
        self.update_data(reader, redraw_all=True)

    def update_data(self, reader: MetricsReader, redraw_all: bool = False) -> None:
        """Read the rows each shown run wrote since the last call; update the curves that changed."""
        known = set(self._metric_names())
        touched: list[int] = []
        for run_id in self.order:
            series = self.series[run_id]
            rows = reader.rows_after(run_id, series.last_rowid)
            if rows and self.metric in series.add_rows(rows):
                touched.append(run_id)
        if redraw_all or set(self._metric_names()) != known:
            self._refresh_metric_choices()
            self.redraw()
        else:
            for run_id in touched:  # in place: setData on the existing items
                self._draw(run_id)

    def curve_count(self) -> int:
        """How many runs have a curve on the plot now."""
        return sum(1 for item in self.curves.values() if item.xData is not None and len(item.xData))

    def curve_data(self, run_id: int) -> tuple[np.ndarray, np.ndarray] | None:
        item = self.curves.get(run_id)
        return None if item is None or item.xData is None else (np.asarray(item.xData), np.asarray(item.yData))

    def _apply_tokens(self) -> None:
        self.plot_widget.setBackground(theme.current().colours.base_bg)
        self.legend.opts["labelTextSize"] = _legend_size()
        self.redraw()

    # -------------------------------------------------------------- drawing
    def redraw(self) -> None:
        """Draw every shown run's curve of the current metric afresh (after an option changed)."""
        for item in [*self.curves.values(), *self.raw_curves.values()]:
            self.plot.removeItem(item)
        self.legend.clear()
        self.curves, self.raw_curves = {}, {}
        for run_id in self.order:
            self._draw(run_id)
        self.hint.setVisible(not self.order)
        self._axis_labels()

    def _draw(self, run_id: int) -> None:
        """Create or update one run's curve (and its faint raw curve when smoothing)."""
        series = self.series[run_id].get(self.metric)
        if series is None or not len(series):
            return
        palette, m = theme.current().colours.run_curves, theme.current().metrics
        colour = palette[self.order.index(run_id) % len(palette)]
        start = self.series[run_id].start_time or 0.0
        x = series.times - start if self.x_combo.currentData() == X_TIME else series.steps
        y = series.values
        if self.log_check.isChecked():
            keep = y > 0  # a log axis cannot show zero or negative values
            x, y = x[keep], y[keep]
        weight = self.smoothing
        if weight > 0:
            raw = self.raw_curves.get(run_id)
            if raw is None:
                faint = pg.mkColor(colour)
                faint.setAlpha(m.raw_curve_alpha)
                raw = self.raw_curves[run_id] = self.plot.plot(pen=pg.mkPen(faint, width=m.raw_curve_width))
            raw.setData(x, y)
        item = self.curves.get(run_id)
        if item is None:
            label = f"#{run_id} {self.labels.get(run_id, '')}".strip()
            item = self.curves[run_id] = self.plot.plot(pen=pg.mkPen(colour, width=m.plot_line_width), name=label)
        item.setData(x, ema(y, weight))

    def _axis_labels(self) -> None:
        self.plot.setLabel("bottom", "seconds since the first value" if self.x_combo.currentData() == X_TIME
                           else "step")
        self.plot.setLabel("left", self.metric)

    def _metric_names(self) -> list[str]:
        names: set[str] = set()
        for series in self.series.values():
            names.update(series.series)
        return sorted(names)

    def _refresh_metric_choices(self) -> None:
        names = self._metric_names() or [DEFAULT_METRIC]
        current = self.metric
        if [self.metric_combo.itemData(i) for i in range(self.metric_combo.count())] == names:
            return
        self.metric_combo.blockSignals(True)
        self.metric_combo.clear()
        for name in names:
            self.metric_combo.addItem(name, name)
        index = self.metric_combo.findData(current)
        self.metric_combo.setCurrentIndex(index if index >= 0 else max(0, self.metric_combo.findData(DEFAULT_METRIC)))
        self.metric_combo.blockSignals(False)

    def _smoothing_changed(self, value: int) -> None:
        self.smooth_label.setText(f"{value / 100:.2f}")
        self.redraw()

    def _log_changed(self, on: bool) -> None:
        self.plot.setLogMode(y=on)
        self.redraw()

    def set_metric(self, name: str) -> None:
        index = self.metric_combo.findData(name)
        if index >= 0:
            self.metric_combo.setCurrentIndex(index)

    def state(self) -> dict[str, Any]:
        return {"metric": self.metric, "smoothing": self.smoothing, "x": self.x_combo.currentData(),
                "log": self.log_check.isChecked()}
