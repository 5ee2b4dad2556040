"""Axis titles and numbers of every plot in a window, in the current font and ink (after a token swap).

pyqtgraph sets an axis title's font once, when it is made, and writes axis text in its own light grey: after
presentation mode (F5) switched the font, titles stayed small and grey. ``restyle_axes(window)`` gives every
visible axis of every plot under ``window`` the application font and the theme's ``plot_axis_ink``.
"""

from __future__ import annotations

from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication, QWidget

from ui import theme


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
