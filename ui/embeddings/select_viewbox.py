"""A pyqtgraph ViewBox that can also draw a selection box or lasso.

In "pan" mode it behaves as usual (drag pans, wheel zooms). In "box" and
"lasso" modes a left drag draws the outline instead, and on release the
ViewBox hands the outline (in data coordinates) to whoever listens; a left
click is reported in every mode so the map can pick the point under it.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import QColor, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsPathItem

from lm_workbench.ui import theme

MODES = ("pan", "box", "lasso")


class SelectViewBox(pg.ViewBox):
    drawn = Signal(str, object)  # mode, polygon [m, 2] in data coordinates
    clicked_at = Signal(object)  # QPointF in data coordinates

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.mode = "pan"
        self._trail: list[tuple[float, float]] = []
        self._outline = QGraphicsPathItem()
        self._style_outline()
        theme.follow(self, self._style_outline)
        self._outline.setZValue(1e6)
        self._outline.hide()
        self.addItem(self._outline, ignoreBounds=True)

    def _style_outline(self) -> None:
        c, m = theme.current().colours, theme.current().metrics
        pen = QPen(QColor(c.selection_outline))
        pen.setCosmetic(True)
        pen.setWidthF(m.selection_width)
        pen.setStyle(Qt.PenStyle.DashLine)
        self._outline.setPen(pen)
        fill = QColor(c.selection_outline)
        fill.setAlpha(c.selection_fill_alpha)
        self._outline.setBrush(fill)

    def set_mode(self, mode: str) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown selection mode {mode!r}")
        self.mode = mode

    # ------------------------------------------------------------- mouse
    def mouseClickEvent(self, ev, axis=None) -> None:  # noqa: N802
        if ev.button() == Qt.MouseButton.LeftButton:
            ev.accept()
            self.clicked_at.emit(self.mapSceneToView(ev.scenePos()))
            return
        super().mouseClickEvent(ev)

    def mouseDragEvent(self, ev, axis=None) -> None:  # noqa: N802
        if self.mode == "pan" or ev.button() != Qt.MouseButton.LeftButton:
            super().mouseDragEvent(ev, axis)
            return
        ev.accept()
        here = self.mapSceneToView(ev.scenePos())
        if ev.isStart():
            start = self.mapSceneToView(ev.buttonDownScenePos())
            self._trail = [(start.x(), start.y())]
        self._trail.append((here.x(), here.y()))
        polygon = self._polygon()
        self._show_outline(polygon)
        if ev.isFinish():
            self._outline.hide()
            self._trail = []
            self.drawn.emit(self.mode, polygon)

    def _polygon(self) -> np.ndarray:
        """The outline drawn so far: the box's four corners, or the lasso's trail ([m, 2])."""
        trail = np.asarray(self._trail, dtype=np.float64)
        if self.mode == "box":
            (x0, y0), (x1, y1) = trail[0], trail[-1]
            return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
        return trail

    def _show_outline(self, polygon: np.ndarray) -> None:
        path = QPainterPath(QPointF(*polygon[0]))
        for x, y in polygon[1:]:
            path.lineTo(QPointF(x, y))
        path.closeSubpath()
        self._outline.setPath(path)
        self._outline.show()


def points_in_polygon(xy: np.ndarray, polygon: np.ndarray) -> np.ndarray:
    """Mask [n] of the points [n, 2] inside the polygon [m, 2] (even-odd rule, vectorised per edge)."""
    x, y = xy[:, 0], xy[:, 1]
    inside = np.zeros(len(xy), dtype=bool)
    if len(polygon) < 3:
        return inside
    xs, ys = polygon[:, 0], polygon[:, 1]
    for j in range(len(polygon)):
        xa, ya, xb, yb = xs[j - 1], ys[j - 1], xs[j], ys[j]
        if ya == yb:
            continue  # a horizontal edge never crosses a horizontal ray
        crosses = (ya > y) != (yb > y)
        x_cross = xa + (y - ya) * (xb - xa) / (yb - ya)
        inside ^= crosses & (x < x_cross)
    return inside
