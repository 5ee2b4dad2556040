"""Metric curves of one or several runs, by step: the one run-curve widget of the Pre-train, Fine-tune and Runs tabs.

One or more pyqtgraph plots stacked in panels that share the step axis. Rows
come in from the store poll (``lm_workbench.ui.run_tracking``): each run keeps a growing
``RunSeries`` fed only the rows newer than the last seen, and each curve is
updated in place with ``setData`` (downsampling and clip-to-view keep long
runs cheap). Which metrics are drawn, in which panel and how is the owner's
``route``: a metric name -> (panel, ``CurveLook``) or None for a metric not
drawn. Runs overlay on the same axes, each in its colour of the theme's
``run_curves`` (by its place among the runs) unless its look names a colour
token. Options for comparing runs: the x axis (step or seconds since the
run's first value), EMA smoothing (the raw curve stays, faint, behind the
smoothed one) and a logarithmic y axis. Every colour and size is a theme token.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Hashable, Iterable, Mapping, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QWidget

from lm_workbench.ui import theme
from lm_workbench.ui.widgets.plot_style import FittingSpacing, range_clear_of_legend
from lm_workbench.store.metrics_reader import MetricRow
from lm_workbench.ui.run_tracking.series import RunSeries, ema
from lm_workbench.ui.widgets.boxes import flush_column

X_STEP, X_TIME = "step", "time"
RAW = "raw"  # the third part of a faint raw curve's key


@dataclass(frozen=True)
class CurveLook:
    """How one metric's curve is drawn.

    ``colour``: a theme colour token's name, or None for the run's colour. ``line``: "line" (the metrics'
    ``plot_line_width``), "thin" (``plot_thin_line_width``) or None (dots only). ``legend``: the curve names
    its run in the legend.
    """

    colour: str | None = None
    line: str | None = "line"
    dots: bool = False
    legend: bool = False


Route = Callable[[str], "tuple[str, CurveLook] | None"]


_PYQTGRAPH_TITLE_H = 30  # the title row's height PlotItem.setTitle fixes


def _close(a, b) -> bool:
    return all(abs(x - y) <= 1e-9 * max(1.0, abs(x), abs(y)) for x, y in zip(a, b))


class RunCurves(QWidget):
    """Curves of the runs shown (``add_run`` / ``set_runs``), fed with ``add_rows``; see the module docstring."""

    def __init__(self, panels: Sequence[tuple[str, int]], route: Route, *,
                 titles: Callable[[], Mapping[str, str]] | None = None, legend_panel: str | None = None,
                 parent: QWidget | None = None) -> None:
        """``panels``: (key, stretch) from top to bottom; ``titles``: each panel's title (read again on
        ``retitle`` and when the theme changes; may use theme colours); ``legend_panel``: the panel whose
        top right corner holds the legend of the runs (None: no legend)."""
        super().__init__(parent)
        pg.setConfigOptions(antialias=True)
        self.route = route
        self.titles = titles or dict
        self.graphics = pg.GraphicsLayoutWidget()
        self.plots: dict[str, pg.PlotItem] = {}
        for row, (key, stretch) in enumerate(panels):
            plot = self.graphics.addPlot(row=row, col=0)
            plot.showGrid(x=True, y=True, alpha=0.15)
            plot.setDownsampling(auto=True, mode="peak")
            plot.setClipToView(True)
            if row:
                plot.setXLink(self.plots[panels[0][0]])
            if row < len(panels) - 1:
                plot.getAxis("bottom").setStyle(showValues=False)  # the panel below says the step
            self.graphics.ci.layout.setRowStretchFactor(row, stretch)
            self.plots[key] = plot
        self.bottom = self.plots[panels[-1][0]]
        self.legend = self.plots[legend_panel].addLegend() if legend_panel else None
        self.legend_panel = legend_panel
        self._legend_range: tuple[float, float] | None = None  # the y range last set to clear the legend
        self.series: dict[int, RunSeries] = {}
        self.labels: dict[int, str] = {}
        self.order: list[int] = []
        self.items: dict[Hashable, pg.PlotDataItem] = {}  # (run id, metric) or (run id, metric, RAW)
        self.x_axis = X_STEP
        self.smoothing = 0.0
        self.log_y = False
        self.left_label: str | None = None
        flush_column(self, self.graphics)
        self._apply_tokens()
        theme.follow(self, self._apply_tokens)

    # ------------------------------------------------------------------ runs
    def add_run(self, run_id: int, label: str = "") -> None:
        """Show ``run_id`` after the runs shown; ``label`` names it in the legend."""
        if run_id not in self.series:
            self.series[run_id] = RunSeries(run_id)
            self.labels[run_id] = label
            self.order.append(run_id)

    def set_runs(self, runs: Sequence[tuple[int, str]]) -> None:
        """Show these runs (id, legend label) in this order, keeping what was read of those already shown;
        call ``redraw`` after."""
        ids = [run_id for run_id, _ in runs]
        for run_id in [r for r in self.series if r not in ids]:
            del self.series[run_id]
        self.labels, self.order = dict(runs), ids
        for run_id in ids:
            self.series.setdefault(run_id, RunSeries(run_id))

    def clear(self) -> None:
        """Forget every run and remove its curves."""
        self._remove_items()
        self.series, self.labels, self.order = {}, {}, []

    def add_rows(self, run_id: int, rows: Iterable[MetricRow]) -> set[str]:
        """Append a shown run's new store rows to its curves; return the names of the metrics that changed."""
        series = self.series.get(run_id)
        if series is None:
            return set()
        changed = series.add_rows(rows)
        for name in changed:
            if self.route(name) is not None:
                self.draw(run_id, name)
        return changed

    def metric_names(self) -> list[str]:
        """Every metric any shown run has logged, sorted."""
        return sorted({name for series in self.series.values() for name in series.series})

    # --------------------------------------------------------------- reading
    def point_count(self, run_id: int, name: str) -> int:
        """How many points the curve of a run's metric has (0 when none)."""
        item = self.items.get((run_id, name))
        return 0 if item is None or item.xData is None else len(item.xData)

    def data(self, run_id: int, name: str) -> tuple[list[float], list[float]]:
        """The (x, y) drawn for a run's metric (empty lists when none)."""
        item = self.items.get((run_id, name))
        if item is None or item.xData is None:
            return [], []
        return list(item.xData), list(item.yData)

    # --------------------------------------------------------------- drawing
    def redraw(self) -> None:
        """Draw every shown run's curves afresh (after the route or an option changed)."""
        self._remove_items()
        for run_id in self.order:
            for name in list(self.series[run_id].series):
                if self.route(name) is not None:
                    self.draw(run_id, name)
        self._axis_labels()

    def draw(self, run_id: int, name: str) -> None:
        """Create or update the curve of a run's metric (and its faint raw curve when smoothing)."""
        series = self.series[run_id].get(name)
        routed = self.route(name)
        if series is None or not len(series) or routed is None:
            return
        panel, look = routed
        start = self.series[run_id].start_time or 0.0
        x = series.times - start if self.x_axis == X_TIME else series.steps
        y = series.values
        finite = np.isfinite(y)  # a value that could not be computed (stored as null) is no point: a series with none
        x, y = x[finite], y[finite]  # drew an all-NaN curve, which crashed pyqtgraph's painting (the Runs tab)
        if not len(y):
            return
        if self.log_y:
            keep = y > 0  # a log axis cannot show zero or negative values
            x, y = x[keep], y[keep]
        if self.smoothing > 0:
            self._item((run_id, name, RAW), panel, look).setData(x, y)
            y = ema(y, self.smoothing)
        self._item((run_id, name), panel, look).setData(x, y)
        self._fit_single_x()
        if panel == self.legend_panel:
            self._clear_of_legend()
            QTimer.singleShot(0, self, self._clear_of_legend)  # again once the legend has laid out a new entry

    def _clear_of_legend(self) -> None:
        """The legend panel's y range: its curves with room above them for the legend in the top right corner
        (issue 49, cosmetic: DPO's legend covered its loss lines). Left alone once the reader zoomed."""
        if self.legend is None:
            return
        plot = self.plots[self.legend_panel]
        view = plot.getViewBox()
        if self._legend_range is not None and not _close(view.viewRange()[1], self._legend_range):
            return  # zoomed or panned by hand since
        ys = [item.yData for item in self.items.values()
              if item in plot.items and item.yData is not None and len(item.yData)]
        if self.log_y:
            ys = [np.log10(y[y > 0]) for y in ys]
        ys = [y[np.isfinite(y)] for y in ys]
        ys = [y for y in ys if len(y)]
        if not ys or not self.legend.items:
            self._legend_range = None
            plot.enableAutoRange(y=True)
            return
        low, high = min(float(y.min()) for y in ys), max(float(y.max()) for y in ys)
        pad = (high - low) * 0.05 if high > low else max(abs(high) * 0.05, 0.05)
        range_clear_of_legend(plot, low - pad, high + pad)
        self._legend_range = tuple(view.viewRange()[1])

    def _fit_single_x(self) -> None:
        """With every curve at one x (a run's first point), an x range of one step around it: pyqtgraph's own
        was −400 to 400 with "step (×0.001)" (issue 49, cosmetic); once a curve spans more, auto range again."""
        xs = [item.xData for item in self.items.values() if item.xData is not None and len(item.xData)]
        if not xs:
            return
        low, high = min(float(x.min()) for x in xs), max(float(x.max()) for x in xs)
        if high == low:
            self.bottom.setXRange(low - 1.0, high + 1.0, padding=0)
            self._x_pinned = True
        elif getattr(self, "_x_pinned", False):
            self._x_pinned = False
            for plot in self.plots.values():
                plot.enableAutoRange(x=True)

    def set_log_y(self, on: bool) -> None:
        self.log_y = on
        for plot in self.plots.values():
            plot.setLogMode(y=on)
        self.redraw()

    def set_left_label(self, text: str | None) -> None:
        self.left_label = text
        self._axis_labels()

    def retitle(self) -> None:
        """Read the panels' titles again. A title may mark where it can break with ``<wbr>``: it breaks there
        while it is wider than its panel (large type on a narrow window), and its row grows to hold it."""
        c, f = theme.current().colours, theme.current().fonts
        titles = self.titles()
        size = f.pt(f.live_plot_title_delta)
        for key, plot in self.plots.items():
            if key not in titles:
                continue
            title = titles[key]
            plot.setTitle(title.replace("<wbr>", ""), size=f"{size:g}pt", color=c.label_ink)
            if "<wbr>" in title and self._title_room(plot) < plot.titleLabel.item.boundingRect().width():
                plot.setTitle(title.replace("<wbr>", "<br>"), size=f"{size:g}pt", color=c.label_ink)
            height = max(int(plot.titleLabel.item.boundingRect().height()) + 2, _PYQTGRAPH_TITLE_H)
            plot.titleLabel.setMaximumHeight(height)
            plot.layout.setRowFixedHeight(0, height)

    def _title_room(self, plot: pg.PlotItem) -> float:
        """The width a panel's title has: the view's, less the left axis and the layouts' margins (the title
        sits over the plotting area; a wider one pushes the panel past the view's right edge)."""
        outer = self.graphics.ci.layout.getContentsMargins()
        inner = plot.layout.getContentsMargins()
        return (self.graphics.viewport().width() - plot.getAxis("left").width()
                - outer[0] - outer[2] - inner[0] - inner[2])

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        if self._legend_range is not None:
            self._legend_range = None  # a new height: the room the legend needs changes
            QTimer.singleShot(0, self, self._clear_of_legend)
        if any("<wbr>" in title for title in self.titles().values()):
            QTimer.singleShot(0, self.retitle)  # once the panels have their new widths

    def _item(self, key: tuple, panel: str, look: CurveLook) -> pg.PlotDataItem:
        item = self.items.get(key)
        if item is None:
            legend = look.legend and len(key) == 2
            item = self.plots[panel].plot(name=self.labels.get(key[0], "") if legend else None)
            self.items[key] = item
            self._style(key, item, look)
        return item

    def _remove_items(self) -> None:
        for item in self.items.values():
            for plot in self.plots.values():
                if item in plot.items:
                    plot.removeItem(item)
        self.items = {}
        self._legend_range = None
        if self.legend is not None:
            self.legend.clear()
            self.plots[self.legend_panel].enableAutoRange(y=True)

    # ---------------------------------------------------------------- styles
    def _colour(self, run_id: int, look: CurveLook) -> str:
        colours = theme.current().colours
        if look.colour is not None:
            return getattr(colours, look.colour)
        index = self.order.index(run_id) if run_id in self.order else 0
        return colours.run_curves[index % len(colours.run_curves)]

    def _style(self, key: tuple, item: pg.PlotDataItem, look: CurveLook) -> None:
        m = theme.current().metrics
        colour = self._colour(key[0], look)
        if len(key) == 3:  # the raw curve behind a smoothed one
            faint = pg.mkColor(colour)
            faint.setAlpha(m.raw_curve_alpha)
            item.setPen(pg.mkPen(faint, width=m.raw_curve_width))
            return
        widths = {"line": m.plot_line_width, "thin": m.plot_thin_line_width}
        item.setPen(pg.mkPen(colour, width=widths[look.line]) if look.line else None)
        if look.dots:
            item.setSymbol("o")
            item.setSymbolSize(m.live_plot_symbol)
            item.setSymbolBrush(colour)
            item.setSymbolPen(None)

    def _axis_labels(self) -> None:
        self.bottom.setLabel("bottom", "seconds since the first value" if self.x_axis == X_TIME else "step")
        if self.left_label is not None:
            for plot in self.plots.values():
                plot.setLabel("left", self.left_label)

    def _apply_tokens(self) -> None:
        c, f, m = theme.current().colours, theme.current().fonts, theme.current().metrics
        self.graphics.setBackground(c.base_bg)
        for plot in self.plots.values():
            axis = plot.getAxis("left")
            axis.setWidth(m.plot_axis_w)
            # numbers spaced for their font on a short panel ("0.6" over "0.4" before; issue 49, cosmetic)
            axis.tickSpacing = FittingSpacing(axis)
            plot.getAxis("bottom").enableAutoSIPrefix(False)  # "step", never "step (×0.001)"
        self.retitle()
        if self.legend is not None:
            self.legend.setOffset((-m.plot_legend_margin, m.plot_legend_margin))  # the top right corner
            self.legend.setLabelTextColor(c.plot_legend_ink)
            self.legend.setLabelTextSize(f"{f.pt(f.run_legend_delta):g}pt")
            self.legend.setBrush(pg.mkBrush(*c.plot_legend_bg))
        for key, item in self.items.items():
            routed = self.route(key[1])
            if routed is not None:
                self._style(key, item, routed[1])
        self._axis_labels()
