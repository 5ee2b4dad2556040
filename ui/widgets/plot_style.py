"""Axis titles and numbers of every plot in a window, in the current font and ink (after a token swap).

pyqtgraph sets an axis title's font once, when it is made, and writes axis text in its own light grey: after
presentation mode (F5) switched the font, titles stayed small and grey. ``restyle_axes(window)`` gives every
visible axis of every plot under ``window`` the application font and the theme's ``plot_axis_ink``.

pyqtgraph also chooses at least two intervals of numbers on an axis whatever its height and font: a 60 px high
chart with 20 pt numbers wrote 0.2, 0.4, 0.6 and 0.8 over one another (the Pre-train charts at 1024 × 768
with F5). A vertical axis restyled here spaces its numbers so that each has one and a half lines of room.
"""

from __future__ import annotations

import math

from PySide6.QtGui import QColor, QFontMetrics
from PySide6.QtWidgets import QApplication, QWidget

from lm_workbench.ui import theme


def restyle_axes(root: QWidget) -> int:
    """Restyle the axes of every plot under ``root``; returns how many axes."""
    import pyqtgraph as pg

    ink = QColor(theme.current().colours.plot_axis_ink)
    font = QApplication.font()
    count = 0
    for view in root.findChildren(pg.GraphicsView):
        scene = view.scene()
        for item in scene.items() if scene is not None else ():
            if isinstance(item, pg.LegendItem):  # legends grow with F5 as the axes do
                _restyle_legend(item, font.pointSizeF())
                continue
            if not isinstance(item, pg.AxisItem):
                continue
            item.setTextPen(pg.mkPen(ink))
            item.setStyle(tickFont=font)
            if item.orientation in ("left", "right"):
                item.tickSpacing = FittingSpacing(item)  # the instance's own: pyqtgraph calls self.tickSpacing
            item.label.setFont(font)
            if item.label.isVisible() and item.labelText:
                item.setLabel(item.labelText, item.labelUnits or None, item.labelUnitPrefix or None,
                              color=ink.name())
            count += 1
    return count


def _restyle_legend(legend, point_size: float) -> None:
    """Every entry of ``legend`` in the application's font size now (its text kept, its colour kept)."""
    legend.setLabelTextSize(f"{point_size:g}pt")
    for _sample, label in list(legend.items):
        label.setText(label.text, size=f"{point_size:g}pt")
    legend.updateSize()


class FittingSpacing:
    """pyqtgraph's tick spacing for a vertical axis, its major interval widened (1, 2, 5, 10 × 10^k) until
    neighbouring numbers stand 1.5 lines of their font apart: fewer numbers on a short axis, never overlapping
    ones (on an axis too short for two, one)."""

    ROOM_LINES = 1.5

    def __init__(self, axis) -> None:
        self._axis = axis

    def __call__(self, low: float, high: float, size: float):
        axis = self._axis
        levels = type(axis).tickSpacing(axis, low, high, size)
        if not levels or size <= 0:
            return levels
        line = QFontMetrics(axis.style["tickFont"] or QApplication.font()).height()
        low, high = min(low, high), max(low, high)
        major, offset = levels[0]
        edge = (high - low) * line / (2 * size)  # a number within half a line of an end is not drawn
        widened = major
        while widened / (high - low) * size < line * self.ROOM_LINES:
            wider = next_nice_interval(widened)
            if _labels_inside(low + edge, high - edge, wider) == 0:  # one number on the axis rather than none
                break
            widened = wider
        if widened == major:
            return levels
        return [(widened, offset)] + [level for level in levels[1:] if level[0] < widened][:1]


def _labels_inside(low: float, high: float, interval: float) -> int:
    """How many multiples of ``interval`` lie within [low, high]."""
    return max(math.floor(high / interval + 1e-9) - math.ceil(low / interval - 1e-9) + 1, 0)


def next_nice_interval(interval: float) -> float:
    """The next of 1, 2, 5, 10 × 10^k above ``interval`` (itself one of them)."""
    power = 10.0 ** math.floor(math.log10(interval) + 1e-9)
    mantissa = interval / power
    for step in (2.0, 5.0, 10.0):
        if step > mantissa + 1e-9:
            return step * power
    return 20.0 * power


def range_clear_of_legend(plot_item, low: float, high: float) -> None:
    """Set ``plot_item``'s y range to show ``low``..``high`` with room above for its legend (a row at the top):
    the legend's height in pixels, as a share of the view's, is left free above ``high`` (issue 49: legends
    covered the Heads chart's and the layer-shift chart's bars). Call again after a resize or a font change."""
    legend, view = plot_item.legend, plot_item.getViewBox()
    span = max(high - low, 1e-9)
    share = 0.25
    if legend is not None and view.height() > 0:
        bottom = legend.mapRectToItem(view, legend.boundingRect()).bottom()  # from the view's top, in pixels
        share = min(0.75, max(0.0, bottom + 6) / view.height())
    plot_item.setYRange(low, high + span * share / (1.0 - share), padding=0)
