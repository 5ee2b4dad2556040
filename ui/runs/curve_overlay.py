"""Curves of several runs on one plot: one metric, EMA smoothing, step or time axis, log scale.

The controls above the shared run-curve widget (``lm_workbench.ui.widgets.run_curves``),
which is fed only the rows each shown run wrote since the last read
(``MetricsReader.rows_after``), so a refresh while a run is active costs one
small query per run. With smoothing on, the raw curve stays visible, faint,
behind the smoothed one (the smoothed value at a point depends only on the
points before it, so it never looks ahead).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QCheckBox, QLabel, QSlider, QWidget

from lm_workbench.ui import theme
from lm_workbench.store.metrics_reader import MetricsReader
from lm_workbench.ui.widgets.run_curves import X_STEP, X_TIME, CurveLook, RunCurves
from lm_workbench.ui.widgets.controls import combo_box, label
from lm_workbench.ui.widgets.boxes import Gap, flush_column, row

DEFAULT_METRIC = "loss"
LOOK = CurveLook(legend=True)


class CurveOverlay(QWidget):
    """Overlaid curves of the selected runs."""

    options_changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.metric_combo = combo_box(tip="Which logged value to plot")
        self.metric_combo.setMinimumContentsLength(14)
        self.smooth_slider = QSlider(Qt.Orientation.Horizontal)
        self.smooth_slider.setRange(0, 99)
        self.smooth_slider.setValue(0)
        theme.bind(self, lambda w, m: w.smooth_slider.setFixedWidth(m.smooth_slider_w))
        self.smooth_slider.setToolTip("Exponential moving average: s_t = w s_(t-1) + (1 - w) v_t, bias-corrected; "
                                      "w from 0 (raw) to 0.99")
        self.smooth_label = QLabel("0.00")
        self.x_combo = combo_box([("step", X_STEP), ("time (s)", X_TIME)],
                                 tip="Horizontal axis: the optimizer step, or seconds since the run's first value")
        self.log_check = QCheckBox("log scale")
        self.log_check.setToolTip("Logarithmic vertical axis")
        controls = row(QLabel("Metric"), self.metric_combo, Gap("wide_spacing"), QLabel("Smoothing"),
                       self.smooth_slider, self.smooth_label, Gap("wide_spacing"), QLabel("x"), self.x_combo,
                       self.log_check, 1)
        self.curves = RunCurves((("main", 1),), self._route, legend_panel="main")
        self.plot = self.curves.plots["main"]
        self.hint = label("Select runs in the table to overlay their curves (Ctrl- or Shift-click for several).",
                          name="summary", wrap=True)
        # The curves are a plain QWidget around the plot: SVG export renders through QWidget.render, which a
        # QGraphicsView overrides with another signature.
        self.export_widget = self.curves
        layout = flush_column(self, controls, (self.export_widget, 1), spacing="row_spacing")
        layout.addWidget(self.hint)
        self.metric_combo.currentIndexChanged.connect(lambda *_: self.redraw())
        self.smooth_slider.valueChanged.connect(self._smoothing_changed)
        self.x_combo.currentIndexChanged.connect(lambda *_: self.redraw())
        self.log_check.toggled.connect(self.curves.set_log_y)
        self.redraw()

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
        self.curves.set_runs([(run_id, f"#{run_id} {label}".strip()) for run_id, label in runs])
        self.update_data(reader, redraw_all=True)

    def update_data(self, reader: MetricsReader, redraw_all: bool = False) -> None:
        """Read the rows each shown run wrote since the last call; update the curves that changed."""
        known = set(self.curves.metric_names())
        for run_id in self.curves.order:
            self.curves.add_rows(run_id, reader.rows_after(run_id, self.curves.series[run_id].last_rowid))
        if redraw_all or set(self.curves.metric_names()) != known:
            self._refresh_metric_choices()
            self.redraw()

    def curve_count(self) -> int:
        """How many runs have a curve on the plot now."""
        return sum(1 for run_id in self.curves.order if self.curves.point_count(run_id, self.metric))

    def curve_data(self, run_id: int) -> tuple[np.ndarray, np.ndarray] | None:
        item = self.curves.items.get((run_id, self.metric))
        return None if item is None or item.xData is None else (np.asarray(item.xData), np.asarray(item.yData))

    # -------------------------------------------------------------- drawing
    def _route(self, name: str) -> tuple[str, CurveLook] | None:
        return ("main", LOOK) if name == self.metric else None

    def redraw(self) -> None:
        """Draw every shown run's curve of the current metric afresh (after an option changed)."""
        self.curves.x_axis = self.x_combo.currentData() or X_STEP
        self.curves.smoothing = self.smoothing
        self.curves.set_left_label(self.metric)
        self.curves.redraw()
        self.hint.setVisible(not self.curves.order)

    def _refresh_metric_choices(self) -> None:
        names = self.curves.metric_names() or [DEFAULT_METRIC]
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

    def set_metric(self, name: str) -> None:
        index = self.metric_combo.findData(name)
        if index >= 0:
            self.metric_combo.setCurrentIndex(index)

    def state(self) -> dict[str, Any]:
        return {"metric": self.metric, "smoothing": self.smoothing, "x": self.x_combo.currentData(),
                "log": self.log_check.isChecked()}
