"""The shared run-curve widget: runs overlaid in their theme colours, routed metrics, smoothing, time axis, tokens."""

from __future__ import annotations

import pytest

from lm_workbench.ui import theme
from lm_workbench.store.metrics_reader import MetricRow
from lm_workbench.ui.theme_tokens import DEFAULT, PRESENTATION
from lm_workbench.ui.widgets.run_curves import RAW, X_TIME, CurveLook, RunCurves

pytestmark = pytest.mark.timeout(60)


def rows(run_id: int, values: list[float], name: str = "loss", first_rowid: int = 1) -> list[MetricRow]:
    return [MetricRow(first_rowid + i, 2 * (i + 1), name, v, 100.0 + 0.5 * i) for i, v in enumerate(values)]


@pytest.fixture
def curves(qtbot):
    route = {"loss": ("top", CurveLook(legend=True)), "accuracy": ("bottom", CurveLook(line="thin", dots=True))}
    widget = RunCurves((("top", 2), ("bottom", 1)), route.get, titles=lambda: {"top": "Loss"}, legend_panel="top")
    qtbot.addWidget(widget)
    yield widget
    theme.set_tokens(DEFAULT)


def test_runs_overlay_in_their_colours_and_only_routed_metrics_are_drawn(curves):
    curves.add_run(7, "lora")
    curves.add_run(3, "full")
    assert curves.add_rows(7, rows(7, [3.0, 2.0, 1.5]) + rows(7, [0.1], name="lr", first_rowid=9)) == {"loss", "lr"}
    curves.add_rows(3, rows(3, [2.5, 2.2]))
    curves.add_rows(99, rows(99, [1.0]))  # a run not shown is ignored
    assert curves.data(7, "loss") == ([2.0, 4.0, 6.0], [3.0, 2.0, 1.5]) and curves.point_count(3, "loss") == 2
    assert curves.point_count(7, "lr") == 0 and (7, "lr") not in curves.items
    palette = DEFAULT.colours.run_curves
    assert curves.items[(7, "loss")].opts["pen"].color().name() == palette[0]
    assert curves.items[(3, "loss")].opts["pen"].color().name() == palette[1]
    assert [label.text for _, label in curves.legend.items] == ["lora", "full"]
    assert curves.metric_names() == ["loss", "lr"]
    curves.clear()
    assert curves.items == {} and curves.order == [] and curves.legend.items == []


def test_smoothing_keeps_the_raw_curve_faint_behind_and_time_is_seconds_since_the_first_value(curves):
    curves.add_run(1, "a")
    values = [4.0, 1.0, 3.0, 2.0]
    curves.add_rows(1, rows(1, values))
    curves.smoothing, curves.x_axis = 0.5, X_TIME
    curves.redraw()
    raw = curves.items[(1, "loss", RAW)]
    assert list(raw.yData) == values and raw.opts["pen"].color().alpha() == DEFAULT.metrics.raw_curve_alpha
    x, y = curves.data(1, "loss")
    assert x == [0.0, 0.5, 1.0, 1.5] and y[0] == 4.0 and y[1] == pytest.approx((0.5 * 4 + 1.0) / 0.75 * 0.5)
    assert curves.bottom.getAxis("bottom").labelText == "seconds since the first value"
    curves.set_log_y(True)
    assert curves.plots["top"].ctrl.logYCheck.isChecked()


def test_a_theme_change_restyles_the_curves_and_titles(curves):
    curves.add_run(1, "a")
    curves.add_rows(1, rows(1, [1.0, 0.5]) + rows(1, [0.6], name="accuracy", first_rowid=5))
    theme.set_tokens(PRESENTATION)
    assert curves.items[(1, "loss")].opts["pen"].widthF() == PRESENTATION.metrics.plot_line_width
    assert curves.items[(1, "accuracy")].opts["pen"].widthF() == PRESENTATION.metrics.plot_thin_line_width
    assert curves.items[(1, "accuracy")].opts["symbolSize"] == PRESENTATION.metrics.live_plot_symbol
    fonts = PRESENTATION.fonts
    assert curves.plots["top"].titleLabel.opts["size"] == f"{fonts.pt(fonts.live_plot_title_delta):g}pt"
    assert all(plot.getAxis("left").minimumWidth() == PRESENTATION.metrics.plot_axis_w for plot in curves.plots.values())


def test_a_single_point_gets_a_step_axis_and_short_panels_spaced_numbers(curves, qtbot):
    """Pre-train's charts (issue 49, cosmetic): one point gave an x axis "step (×0.001)" from −400 to 400, and a
    short panel wrote 0.6 over 0.4. One point: one step either side, no SI prefix; more points: auto range again.
    A short panel's numbers stand at least 1.5 lines of their font apart."""
    from PySide6.QtGui import QFontMetrics
    from PySide6.QtWidgets import QApplication

    curves.resize(600, 400)
    curves.show()
    curves.add_run(1, "run")
    curves.add_rows(1, rows(1, [3.0]))  # one point, at step 2
    QApplication.processEvents()
    low, high = curves.bottom.viewRange()[0]
    assert (low, high) == pytest.approx((1.0, 3.0))
    axis = curves.bottom.getAxis("bottom")
    assert axis.autoSIPrefix is False and "×" not in axis.labelString()
    curves.add_rows(1, [MetricRow(2, 4, "loss", 2.5, 101.0), MetricRow(3, 6, "loss", 2.0, 102.0)])
    qtbot.waitUntil(lambda: curves.bottom.viewRange()[0][1] >= 6.0, timeout=2000)
    low, high = curves.bottom.viewRange()[0]
    assert low <= 2.0 and high - low < 10  # auto range over the data (steps 2 to 6) again
    left = curves.plots["top"].getAxis("left")
    line = QFontMetrics(left.style["tickFont"] or QApplication.font()).height()
    size = 5 * line  # a panel five lines high, values 0..1
    assert type(left).tickSpacing(left, 0.0, 1.0, size)[0][0] * size < 1.5 * line  # pyqtgraph's own: crowded
    major = left.tickSpacing(0.0, 1.0, size)[0][0]
    assert major / 1.0 * size >= 1.5 * line
