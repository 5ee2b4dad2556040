"""The 2-D map of occurrence vectors: a pyqtgraph scatter that stays fluid at 200,000 points.

Drawing cost grows with the points painted, so the map paints at most
``MAX_DRAWN`` of them: one ``ScatterPlotItem`` per colour group (one brush,
no outline pen, pixel-sized symbols), holding only the points inside a
margin around the visible range. When more than ``MAX_DRAWN`` points fall
there (zoomed out), a fixed random subset is drawn: each point has a random
rank, and the points whose rank is below a cut-off are kept, so panning
keeps the same points and zooming in brings the hidden ones back. The
subset is recomputed only when the view leaves the margin or the zoom
changes, not on every frame.

Hovering reports the drawn point nearest the mouse (within ``HOVER_PX``),
a left click reports it (``clicked``), and in box or lasso mode a drag
reports every point inside the outline, drawn or not (``selection_drawn``).
The map only shows the selection and the current point: the explorer's
``EmbeddingsState`` holds them and their undo stack (Ctrl+Z asks for it).
"""

from __future__ import annotations

import html
from typing import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QKeySequence, QShortcut
from PySide6.QtWidgets import QButtonGroup, QRadioButton, QWidget

from lm_workbench.ui import theme
from lm_workbench.ui.embeddings.palette import ColourGroups, colour_groups
from lm_workbench.ui.embeddings.select_viewbox import SelectViewBox, points_in_polygon
from lm_workbench.ui.widgets.boxes import flush_column, row
from lm_workbench.ui.widgets.controls import label

MAX_DRAWN = 60_000  # points painted at once (about 70 frames/s on 2 cores, offscreen)
MARGIN = 1.0  # the drawn region extends this many view widths beyond each edge
HOVER_PX = 7.0  # how close (in pixels) the mouse must be to a point to hover it


class _Points(pg.ScatterPlotItem):
    """A scatter item that leaves clicks to the ViewBox (the map picks the nearest point itself)."""

    def mouseClickEvent(self, ev) -> None:  # noqa: N802
        ev.ignore()


class ScatterMap(QWidget):
    hovered = Signal(int)  # point index; -1 when the mouse left every point
    clicked = Signal(int)  # point index of the clicked point
    selection_drawn = Signal(object)  # np.ndarray of the points inside a box or lasso the user drew
    undo_requested = Signal()  # Ctrl+Z over the map

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._xy = np.zeros((0, 2), dtype=np.float64)
        self._groups: ColourGroups | None = None
        self._rank = np.zeros(0, dtype=np.float64)
        self._drawn = np.zeros(0, dtype=np.int64)  # occurrence indices painted now
        self._drawn_box: tuple[float, float, float, float] | None = None  # region the drawn set covers
        self._drawn_scale: float = 0.0
        self._items: list[pg.ScatterPlotItem] = []
        self._selected = np.zeros(0, dtype=np.int64)
        self._current: int | None = None
        self._hover: int | None = None

        self.viewbox = SelectViewBox()
        self.plot = pg.PlotWidget(viewBox=self.viewbox)
        self.plot.setMouseTracking(True)
        self.plot.getPlotItem().hideButtons()
        self.plot.getPlotItem().setMenuEnabled(False)
        self.legend_label = label("", wrap=True)
        self.legend_label.setTextFormat(Qt.TextFormat.RichText)
        self._selected_item = _Points(pxMode=True, brush=None)
        self._current_item = _Points(pxMode=True, brush=None)
        self._hover_item = _Points(pxMode=True, brush=None)
        for item, z in ((self._selected_item, 10), (self._current_item, 12), (self._hover_item, 11)):
            item.setZValue(z)
            self.plot.addItem(item, ignoreBounds=True)

        self.mode_buttons = QButtonGroup(self)
        radios = []
        for mode, text, tip in (("pan", "Pan", "Drag to pan, wheel to zoom; click a point to select it"),
                                ("box", "Box", "Box selection: drag a rectangle to select the points inside"),
                                ("lasso", "Lasso", "Lasso selection: drag an outline to select the points inside")):
            button = QRadioButton(text)
            button.setToolTip(tip)
            button.setProperty("mode", mode)
            self.mode_buttons.addButton(button)
            radios.append(button)
            button.setChecked(mode == "pan")
        self.mode_buttons.buttonToggled.connect(self._mode_toggled)
        self.count_label = label("", name="summary")
        self.figure = QWidget()  # the plot and its legend: what a picture export shows
        flush_column(self.figure, (self.plot, 1), self.legend_label).setSpacing(0)
        flush_column(self, row(*radios, 1, self.count_label), (self.figure, 1), spacing="compact_spacing")

        self._reclip_timer = QTimer(self)
        self._reclip_timer.setSingleShot(True)
        self._reclip_timer.setInterval(30)
        self._reclip_timer.timeout.connect(self._reclip)
        self.viewbox.sigRangeChanged.connect(self._range_changed)
        self.viewbox.drawn.connect(self._outline_drawn)
        self.viewbox.clicked_at.connect(self._clicked_at)
        # Every move, not pyqtgraph's sigMouseMoved: that drops moves closer than 1/60 s, so a mouse
        # that stops quickly would leave the hover on the point it passed before.
        self.plot.viewport().installEventFilter(self)
        undo = QShortcut(QKeySequence.StandardKey.Undo, self)
        undo.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        undo.activated.connect(self.undo_requested)
        self._labels: list[str | None] = []
        self._style_marks()
        theme.follow(self, self._apply_tokens)

    def _style_marks(self) -> None:
        c, m = theme.current().colours, theme.current().metrics
        self.plot.setBackground(c.base_bg)
        for axis in ("left", "bottom"):
            self.plot.getPlotItem().getAxis(axis).setPen(pg.mkPen(c.map_axis))
            self.plot.getPlotItem().getAxis(axis).setTextPen(pg.mkPen(c.muted_ink))
        pad = m.legend_padding
        self.legend_label.setStyleSheet(f"QLabel {{ background: {c.base_bg}; padding: {pad[0]}px {pad[1]}px; }}")
        self.figure.setStyleSheet(f"background: {c.base_bg};")
        self._selected_item.setSize(m.map_selected_point)
        self._selected_item.setPen(pg.mkPen(c.map_selected_outline, width=m.map_selected_width))
        self._current_item.setSize(m.map_current_point)
        self._current_item.setPen(pg.mkPen(c.map_current_outline, width=m.map_current_width))
        self._hover_item.setSize(m.map_hover_point)
        self._hover_item.setPen(pg.mkPen(c.map_hover_outline, width=m.map_hover_width))

    def _apply_tokens(self) -> None:
        self._style_marks()
        for item in self._items:
            item.setSize(theme.current().metrics.map_point)
        if self._groups is not None and len(self._labels) == len(self._xy):
            self.set_labels(self._labels)

    # ----------------------------------------------------------------- API
    def set_points(self, xy: np.ndarray, labels: list[str | None] | None = None, *, keep_view: bool = False,
                   first: Sequence[str] = ()) -> None:
        """Show points [n, 2] coloured by ``labels`` (one per point; None: one colour); the labels in ``first``
        get their colours before the most frequent others."""
        self._xy = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
        n = len(self._xy)
        self._rank = np.random.default_rng(0).random(n)  # fixed: the same points survive downsampling
        self._selected = np.zeros(0, dtype=np.int64)
        self._current = self._hover = None
        self.set_labels(labels if labels is not None else [""] * n, first)
        if not keep_view or n == 0:
            self.reset_view()
        self._refresh_marks()

    def set_labels(self, labels: list[str | None], first: Sequence[str] | None = None) -> None:
        """Recolour by a new label per point (keeps the view and the selection); ``first`` as in ``set_points``
        (None: the ones given last)."""
        if len(labels) != len(self._xy):
            raise ValueError(f"{len(labels)} labels for {len(self._xy)} points")
        self._labels = list(labels)
        if first is not None:
            self._first = tuple(first)
        self._groups = colour_groups(labels, first=getattr(self, "_first", ()))
        g = self._groups
        # Items are reused, never removed: a dropped Qt item could be freed later by a garbage
        # collection on a worker thread (the model loader runs one), off the GUI thread.
        while len(self._items) < g.group_count:
            item = _Points(pxMode=True, size=theme.current().metrics.map_point, pen=None, symbol="o", antialias=False,
                           hoverable=False)
            item.setZValue(1)
            self.plot.addItem(item)
            self._items.append(item)
        for code, item in enumerate(self._items):
            item.setBrush(pg.mkBrush(QColor(g.colour_of(code))))
            item.setVisible(code < g.group_count)
        self.legend_label.setText(self.legend_html())
        self.legend_label.setVisible(g.names != [""] and len(self._xy) > 0)
        self._drawn_box = None
        self._reclip()

    def legend_html(self) -> str:
        """One coloured dot and name per group, largest group first, with its point count."""
        g = self._groups
        if g is None:
            return ""
        counts = np.bincount(g.codes, minlength=g.group_count)
        dot, muted = theme.current().metrics.map_legend_dot, theme.current().colours.token_id_ink
        chips = [f"<span style='color:{g.colour_of(c)}; font-size:{dot}px'>&#9679;</span>&nbsp;"
                 f"{html.escape(g.name_of(c))}&nbsp;<span style='color:{muted}'>{counts[c]:,}</span>"
                 for c in range(g.group_count)]
        return "&nbsp;&nbsp; ".join(chips)

    def legend_names(self) -> list[str]:
        g = self._groups
        return [] if g is None else [g.name_of(c) for c in range(g.group_count)]

    def reset_view(self) -> None:
        if len(self._xy):
            lo, hi = self._xy.min(axis=0), self._xy.max(axis=0)
            pad = np.maximum((hi - lo) * 0.05, 1e-6)
            self.viewbox.setRange(xRange=(lo[0] - pad[0], hi[0] + pad[0]), yRange=(lo[1] - pad[1], hi[1] + pad[1]),
                                  padding=0)
        self._drawn_box = None
        self._reclip()

    def point_count(self) -> int:
        return len(self._xy)

    def drawn_indices(self) -> np.ndarray:
        """Occurrence indices painted now (all of them unless downsampled or outside the margin)."""
        return self._drawn.copy()

    def item_point_counts(self) -> list[int]:
        """Points held by each colour group's scatter item."""
        return [len(item.data) for item in self._items[: self._groups.group_count]] if self._groups else []

    def groups(self) -> ColourGroups | None:
        return self._groups

    def coordinates(self) -> np.ndarray:
        return self._xy

    def scene_pos_of(self, index: int) -> QPointF:
        """Where point ``index`` lies in the plot's scene (for hovering it programmatically)."""
        return self.viewbox.mapViewToScene(QPointF(*self._xy[index]))

    def widget_pos_of(self, index: int) -> QPoint:
        """Where point ``index`` lies in the plot widget's viewport (pixels)."""
        return self.plot.mapFromScene(self.scene_pos_of(index))

    def current(self) -> int | None:
        return self._current

    def hovered_index(self) -> int | None:
        return self._hover

    def selected(self) -> np.ndarray:
        return self._selected.copy()

    def set_mode(self, mode: str) -> None:
        for button in self.mode_buttons.buttons():
            if button.property("mode") == mode:
                button.setChecked(True)

    def show_current(self, index: int | None) -> None:
        """Mark ``index`` as the clicked point (None clears); the state object decides what is current."""
        self._current = index
        self._refresh_marks()

    def show_selection(self, indices: np.ndarray) -> None:
        """Mark these points as selected (the state object keeps the selection and its undo)."""
        self._selected = np.unique(np.asarray(indices, dtype=np.int64))
        self._refresh_marks()

    def points_in(self, polygon: np.ndarray) -> np.ndarray:
        """The points inside ``polygon`` [m, 2] (data coordinates)."""
        return np.flatnonzero(points_in_polygon(self._xy, np.asarray(polygon, dtype=np.float64)))

    def nearest_drawn(self, x: float, y: float, radius_px: float = HOVER_PX) -> int | None:
        """The painted point nearest (x, y) in data coordinates, if within ``radius_px`` pixels."""
        if not len(self._drawn):
            return None
        px_w, px_h = self.viewbox.viewPixelSize()
        if px_w <= 0 or px_h <= 0:
            return None
        pts = self._xy[self._drawn]
        d2 = ((pts[:, 0] - x) / px_w) ** 2 + ((pts[:, 1] - y) / px_h) ** 2  # [drawn], squared pixels
        best = int(np.argmin(d2))
        return int(self._drawn[best]) if d2[best] <= radius_px**2 else None

    def hover_scene_pos(self, scene_pos: QPointF) -> int | None:
        """Hover whatever lies under a scene position (the scene's mouse-move handler)."""
        if not self.viewbox.sceneBoundingRect().contains(scene_pos):
            index = None
        else:
            p = self.viewbox.mapSceneToView(scene_pos)
            index = self.nearest_drawn(p.x(), p.y())
        if index != self._hover:
            self._hover = index
            self._refresh_hover()
            self.hovered.emit(-1 if index is None else index)
        return index

    # ------------------------------------------------------------ internals
    def eventFilter(self, watched, event) -> bool:  # noqa: N802
        kind = event.type()
        if kind == QEvent.Type.MouseMove:
            self.hover_scene_pos(self.plot.mapToScene(event.position().toPoint()))
        elif kind == QEvent.Type.Leave and self._hover is not None:
            self._hover = None
            self._refresh_hover()
            self.hovered.emit(-1)
        return False

    def _mode_toggled(self, button, checked: bool) -> None:
        if checked:
            self.viewbox.set_mode(button.property("mode"))

    def _clicked_at(self, p: QPointF) -> None:
        index = self.nearest_drawn(p.x(), p.y())
        if index is not None:
            self.clicked.emit(index)

    def _outline_drawn(self, mode: str, polygon: np.ndarray) -> None:
        self.selection_drawn.emit(self.points_in(polygon))

    def _range_changed(self, *_args) -> None:
        if self._drawn_box is None or self._needs_reclip():
            self._reclip_timer.start()

    def _view_box(self) -> tuple[float, float, float, float]:
        (x0, x1), (y0, y1) = self.viewbox.viewRange()
        return x0, x1, y0, y1

    def _needs_reclip(self) -> bool:
        x0, x1, y0, y1 = self._view_box()
        bx0, bx1, by0, by1 = self._drawn_box
        outside = x0 < bx0 or x1 > bx1 or y0 < by0 or y1 > by1
        scale = (x1 - x0) * (y1 - y0)
        zoomed = self._drawn_scale > 0 and not (1 / 1.5 < scale / self._drawn_scale < 1.5)
        return outside or zoomed

    def _reclip(self) -> None:
        """Choose the points to paint: those near the view, thinned to ``MAX_DRAWN``."""
        n = len(self._xy)
        if n == 0 or self._groups is None:
            self._drawn = np.zeros(0, dtype=np.int64)
            for item in self._items:
                item.setData(x=[], y=[])
            self.count_label.setText("")
            return
        x0, x1, y0, y1 = self._view_box()
        w, h = x1 - x0, y1 - y0
        box = (x0 - MARGIN * w, x1 + MARGIN * w, y0 - MARGIN * h, y1 + MARGIN * h)
        x, y = self._xy[:, 0], self._xy[:, 1]
        near = (x >= box[0]) & (x <= box[1]) & (y >= box[2]) & (y <= box[3])
        count = int(near.sum())
        if count > MAX_DRAWN:
            near &= self._rank < MAX_DRAWN / count
        drawn = np.flatnonzero(near)
        self._drawn, self._drawn_box, self._drawn_scale = drawn, box, w * h
        codes = self._groups.codes[drawn]
        for code, item in enumerate(self._items):
            if code >= self._groups.group_count:
                item.setData(x=[], y=[])
                continue
            idx = drawn[codes == code]
            item.setData(x=x[idx], y=y[idx])
        shown = f"{n:,} points" if count <= MAX_DRAWN else f"{len(drawn):,} of {count:,} nearby points drawn"
        self.count_label.setText(shown + (f" · {len(self._selected):,} selected" if len(self._selected) else ""))

    def _refresh_marks(self) -> None:
        sel = self._selected
        self._selected_item.setData(x=self._xy[sel, 0], y=self._xy[sel, 1]) if len(sel) else self._selected_item.clear()
        if self._current is not None and self._current < len(self._xy):
            self._current_item.setData(x=[self._xy[self._current, 0]], y=[self._xy[self._current, 1]])
        else:
            self._current_item.clear()
        self._refresh_hover()
        if self._groups is not None and len(self._xy):
            text = self.count_label.text().split(" · ")[0]
            self.count_label.setText(text + (f" · {len(sel):,} selected" if len(sel) else ""))

    def _refresh_hover(self) -> None:
        if self._hover is not None and self._hover < len(self._xy):
            self._hover_item.setData(x=[self._xy[self._hover, 0]], y=[self._xy[self._hover, 1]])
        else:
            self._hover_item.clear()
