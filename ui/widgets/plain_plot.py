"""A pyqtgraph chart set up the way the panels' small line charts are: no right-click menu, no auto-range button,
horizontal grid lines and both axes titled. ``plain_plot_item(plot, bottom, left)`` returns the plot's
``PlotItem``, for the curves, legend and ticks the panel adds next."""

from __future__ import annotations

from typing import Any


def plain_plot_item(plot: Any, bottom: str | None, left: str, *, si_prefix: bool = True) -> Any:
    """The ``PlotItem`` of the ``pg.PlotWidget`` ``plot``, its menu and buttons off, light horizontal grid lines,
    ``bottom`` (None: no title) and ``left`` as axis titles; with ``si_prefix`` false the left axis keeps its
    numbers unscaled (no "×0.001")."""
    item = plot.getPlotItem()
    item.setMenuEnabled(False)
    item.hideButtons()
    item.showGrid(x=False, y=True, alpha=0.25)
    if bottom is not None:
        item.setLabel("bottom", bottom)
    item.setLabel("left", left)
    if not si_prefix:
        item.getAxis("left").enableAutoSIPrefix(False)
    return item
