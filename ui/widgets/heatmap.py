"""One attention matrix as a heatmap with token labels on both axes.

Rows are queries (the token that looks), columns keys (the token looked
at), colour the weight from 0 to the matrix's largest value (the legend
says which). The matrix is one QImage
scaled to square cells; labels are drawn where a cell is tall enough to hold
them (every n-th otherwise). Hovering a cell shows its value in a line below
the map and in a tooltip.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QImage, QPainter, QPen
from PySide6.QtWidgets import QWidget

from lm_workbench.ui import theme
from lm_workbench.ui.widgets.hover import HoverTips
from lm_workbench.ui.widgets.token_layout import display_label
from lm_workbench.ui.widgets.colormap import rgba_image, to_rgba, to_rgba_signed
from lm_workbench.ui.widgets.canvas import SmallFontCanvas

MARGIN = 6.0
LEGEND_W = 54.0
STATUS_H = 20.0


class HeatmapView(HoverTips, SmallFontCanvas, QWidget):
    hovered = Signal(str)  # the hover line ("" when the mouse left the map)
    tip_on_move = True  # the tooltip comes at once, as the hover line under the map does

    def __init__(self, parent: QWidget | None = None, empty_hint: str = "Click a cell of the grid."):
        super().__init__(parent)
        self.empty_hint = empty_hint  # what the empty view says: where its matrix comes from
        self._matrix: np.ndarray | None = None
        self._image: QImage | None = None
        self._q_labels: list[str] = []
        self._k_labels: list[str] = []
        self._title = ""
        self._vmax = 1.0
        self._vmin = 0.0
        self._signed = False
        self._axes = ("query", "key")  # what rows and columns are, for the hover line
        self.setMouseTracking(True)
        self._set_up_canvas()

    def _after_theme(self) -> None:
        self._image = None if self._matrix is None else self._colour_image()
        self.update()

    def _colour_image(self) -> QImage:
        """The matrix coloured from ``vmin`` (0 unless a similarity matrix says otherwise) to its maximum; a signed
        matrix through the diverging colormap, symmetric about zero."""
        if self._signed:
            return rgba_image(to_rgba_signed(self._matrix, self._vmax))
        span = max(self._vmax - self._vmin, 1e-12)
        return rgba_image(to_rgba(np.clip((self._matrix - self._vmin) / span, 0.0, 1.0)))

    # ----------------------------------------------------------------- API
    def set_matrix(self, matrix: np.ndarray | None, queries: list[str] | None = None,
                   keys: list[str] | None = None, title: str = "", vmin: float = 0.0, signed: bool = False) -> None:
        """Show a [queries, keys] matrix (None clears), coloured from ``vmin`` (default 0) to its largest value;
        ``signed``: through the diverging colormap over ±its largest |value| (NaN cells: not computed yet)."""
        self._matrix = None if matrix is None else np.asarray(matrix, dtype=np.float64)
        self._signed = signed
        known = self._matrix[np.isfinite(self._matrix)] if matrix is not None else np.zeros(0)
        if signed:
            self._vmax = float(np.abs(known).max()) if known.size and np.abs(known).max() > 0 else 1.0
            self._vmin = -self._vmax
        else:
            self._vmax = float(known.max()) if known.size else 1.0
            self._vmin = float(vmin)
        self._image = None if matrix is None else self._colour_image()
        self._q_labels = [display_label(t) for t in queries or []]
        self._k_labels = [display_label(t) for t in keys or []]
        self._title = title
        self.forget_hover()
        self.update()

    def matrix(self) -> np.ndarray | None:
        return None if self._matrix is None else self._matrix.copy()

    def title(self) -> str:
        return self._title

    def cell_rect(self, q: int, k: int) -> QRectF:
        left, top, size = self._geometry()
        return QRectF(left + k * size, top + q * size, size, size)

    def cell_at(self, pos: QPointF) -> tuple[int, int] | None:
        if self._matrix is None:
            return None
        left, top, size = self._geometry()
        q, k = int((pos.y() - top) // size), int((pos.x() - left) // size)
        n_q, n_k = self._matrix.shape
        return (q, k) if 0 <= q < n_q and 0 <= k < n_k and pos.x() >= left and pos.y() >= top else None

    # ----------------------------------------------------------------- hover
    def part_at(self, pos: QPointF) -> tuple[int, int] | None:
        return self.cell_at(pos)

    def part_tip(self, part: tuple[int, int]) -> str:
        """"query → key: value" of a cell."""
        if self._matrix is None:
            return ""
        q, k = part
        (rows, columns), value = self._axes, self._matrix[q, k]
        shown = "not computed yet" if not np.isfinite(value) else f"{value:.4f}"
        if (rows, columns) != ("query", "key"):
            return f"{self._q_labels[q]} · {self._k_labels[k]} ({columns} {k}): {shown}"
        return f"{self._q_labels[q]} (query {q}) → {self._k_labels[k]} (key {k}): {shown}"

    def set_axes(self, rows: str, columns: str) -> None:
        """Name the rows and columns for the hover line (default: queries and keys of an attention matrix)."""
        self._axes = (rows, columns)

    def hover_changed(self) -> None:
        self.hovered.emit(self.hover_text())

    # ------------------------------------------------------------ geometry
    def _label_widths(self) -> tuple[float, float]:
        def widest(labels: list[str]) -> float:
            return min(90.0, max((self._fm.horizontalAdvance(s) for s in labels), default=0.0))

        return widest(self._q_labels) + 8, widest(self._k_labels) + 8

    def _title_h(self) -> float:
        return self._fm.height() + 2

    def _legend_w(self) -> float:
        """The colour bar and its numbers (at least the old fixed width)."""
        return max(LEGEND_W, 26 + self._fm.horizontalAdvance("-0.00"))

    def _geometry(self) -> tuple[float, float, float]:
        """(left, top, cell size) of the matrix area."""
        if self._matrix is None:
            return MARGIN, MARGIN, 1.0
        q_w, k_h = self._label_widths()
        n_q, n_k = self._matrix.shape
        left, top = MARGIN + q_w, MARGIN + self._title_h() + k_h
        avail_w = self.width() - left - MARGIN - self._legend_w()
        avail_h = self.height() - top - MARGIN - STATUS_H
        return left, top, max(1.0, min(avail_w / n_k, avail_h / n_q, theme.current().metrics.heatmap_max_cell))

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(320, 300)

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        return QSize(160, 140)

    # ------------------------------------------------------------ painting
    def paintEvent(self, event) -> None:  # noqa: N802
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        c, m = theme.current().colours, theme.current().metrics
        if self._matrix is None:
            painter.setPen(QColor(c.hint_ink))
            painter.drawText(QRectF(self.rect()).adjusted(MARGIN, MARGIN, -MARGIN, -MARGIN),  # wrapped, never cut
                             int(Qt.AlignmentFlag.AlignCenter) | int(Qt.TextFlag.TextWordWrap), self.empty_hint)
            painter.end()
            return
        left, top, size = self._geometry()
        n_q, n_k = self._matrix.shape
        area = QRectF(left, top, n_k * size, n_q * size)
        painter.drawImage(area, self._image)
        painter.setPen(QPen(QColor(c.frame), m.chip_border_width))
        painter.drawRect(area)
        painter.setFont(self._font)
        title_font = QFont(self._font)
        title_font.setBold(True)
        painter.setFont(title_font)
        painter.setPen(QColor(c.label_ink))
        title = QFontMetricsF(title_font).elidedText(self._title, Qt.TextElideMode.ElideRight, self.width() - 2 * MARGIN)
        painter.drawText(QRectF(MARGIN, MARGIN - 2, self.width(), self._title_h()), Qt.AlignmentFlag.AlignLeft,
                         title)  # a title wider than the map ends in "…" (the whole title is title())
        painter.setFont(self._font)
        self._paint_labels(painter, left, top, size)
        self._paint_legend(painter, area)
        if self.hovered_part() is not None:
            painter.setPen(QPen(QColor(c.hover), m.hover_width))
            painter.drawRect(self.cell_rect(*self.hovered_part()))
            painter.setPen(QColor(c.ink))
            painter.drawText(QRectF(MARGIN, area.bottom() + 3, self.width() - 2 * MARGIN, STATUS_H),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, self.hover_text())
        painter.end()

    def _paint_labels(self, painter: QPainter, left: float, top: float, size: float) -> None:
        step = max(1, int(np.ceil((self._fm.height() - 3) / size)))  # a label per row when it (nearly) fits
        painter.setPen(QColor(theme.current().colours.label_ink))
        q_w, k_h = self._label_widths()
        for q in range(0, len(self._q_labels), step):
            rect = QRectF(MARGIN, top + q * size, q_w - 4, max(size, self._fm.height()))
            text = self._fm.elidedText(self._q_labels[q], Qt.TextElideMode.ElideRight, q_w - 4)
            painter.drawText(rect, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop, text)
        for k in range(0, len(self._k_labels), step):
            painter.save()
            painter.translate(left + (k + 0.5) * size + self._fm.ascent() / 2 - 1, top - 4)
            painter.rotate(-90)
            text = self._fm.elidedText(self._k_labels[k], Qt.TextElideMode.ElideRight, k_h - 4)
            painter.drawText(QPointF(0, 0), text)
            painter.restore()

    def _paint_legend(self, painter: QPainter, area: QRectF) -> None:
        bar = QRectF(area.right() + 10, area.top(), 10, max(40.0, min(area.height(), 160.0)))
        ramp = np.linspace(1.0, 0.0, 64)[:, None]
        image = to_rgba_signed(2 * ramp - 1, 1.0) if self._signed else to_rgba(ramp)
        painter.drawImage(bar, rgba_image(image))
        painter.setPen(QColor(theme.current().colours.frame))
        painter.drawRect(bar)
        painter.setPen(QColor(theme.current().colours.token_id_ink))
        painter.drawText(QPointF(bar.right() + 3, bar.top() + self._fm.ascent()), f"{self._vmax:.2f}")
        painter.drawText(QPointF(bar.right() + 3, bar.bottom()), f"{self._vmin:.2f}" if self._vmin else "0")
