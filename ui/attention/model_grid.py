"""The model view: every layer x head of one attention kind as a small heatmap.

Rows are layers, columns heads, and a last column, set apart, the mean over
heads (or, when that gives larger thumbnails, heads as rows and layers as
columns). Each thumbnail is the [queries, keys] matrix pooled to at most
``THUMB`` pixels a side (block maxima, so a sharp pattern survives) and scaled
to its own maximum: the numbers come from ``lm_workbench.engine.attention_grid.grid_values``
(on the worker thread); this widget only draws them, all in one QImage made
once per selection, and the paint draws one image per cell. Clicking a
cell emits ``cell_clicked(layer, head)`` (head -1: the mean).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QPointF, QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFontMetricsF, QImage, QPainter, QPen
from PySide6.QtWidgets import QWidget

from lm_workbench.ui import theme
from lm_workbench.attention.for_views import THUMB, grid_values
from lm_workbench.ui.widgets.colormap import rgba_image, to_rgba
from lm_workbench.ui.widgets.canvas import on_base

if TYPE_CHECKING:
    from lm_workbench.attention.for_views import AttentionSide

GAP = 3.0
MEAN_GAP = 10.0
MEAN = -1


class ModelGrid(QWidget):
    cell_clicked = Signal(int, int)  # layer, head (MEAN for the mean over heads)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._mosaic: QImage | None = None
        self._shape = (0, 0)  # layers, heads
        self._thumb = THUMB
        self._selected: tuple[int, list[int]] = (0, [])
        on_base(self)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self._values: np.ndarray | None = None  # the mosaic's values in [0, 1]
        self._small = theme.sized_font(self.font(), theme.current().fonts.small_delta)
        theme.follow(self, self._apply_tokens)

    def _apply_tokens(self) -> None:
        self._small = theme.sized_font(self.font(), theme.current().fonts.small_delta)
        self._mosaic = None if self._values is None else rgba_image(to_rgba(self._values))
        self.update()

    def _label_w(self) -> float:
        """The row labels' column: wide enough for "mean" in the current font."""
        return QFontMetricsF(self._small).horizontalAdvance("mean") + 8

    def _header_h(self) -> float:
        return QFontMetricsF(self._small).height() + 2

    # ----------------------------------------------------------------- API
    def set_side(self, side: AttentionSide | None, *, hide: bool = False,
                 values: tuple[np.ndarray, int] | None = None) -> None:
        """Show the thumbnails of every layer and head (and the mean) of ``side``.

        ``values`` is ``grid_values(side, hide)`` when it was already computed off the Qt thread
        (the attention view does that in its job, so toggling "hide special tokens" is instant).
        """
        if side is None:
            self._mosaic, self._values, self._shape = None, None, (0, 0)
            self.update()
            return
        mosaic, t = values if values is not None else grid_values(side, hide)
        self._values = mosaic
        self._mosaic = rgba_image(to_rgba(mosaic))
        self._thumb = t
        self._shape = tuple(side.weights.shape[:2])
        self.update()

    def set_selection(self, layer: int, heads: list[int]) -> None:
        self._selected = (layer, list(heads))
        self.update()

    def shape(self) -> tuple[int, int]:
        return self._shape

    def cell_rect(self, layer: int, head: int) -> QRectF:
        """Where the thumbnail of (layer, head) is drawn; head ``MEAN`` is the mean column (or row)."""
        transposed, size = self._layout()
        index = self._shape[1] if head == MEAN else head
        gap = MEAN_GAP if head == MEAN else 0.0
        if transposed:  # heads as rows
            return QRectF(self._label_w() + layer * (size + GAP), self._header_h() + index * (size + GAP) + gap, size, size)
        return QRectF(self._label_w() + index * (size + GAP) + gap, self._header_h() + layer * (size + GAP), size, size)

    def transposed(self) -> bool:
        """True when heads are rows and layers columns (chosen when that gives larger thumbnails)."""
        return self._layout()[0]

    def cell_at(self, pos: QPointF) -> tuple[int, int] | None:
        layers, heads = self._shape
        for layer in range(layers):
            for head in list(range(heads)) + [MEAN]:
                if self.cell_rect(layer, head).contains(pos):
                    return layer, head
        return None

    # ------------------------------------------------------------ geometry
    def _layout(self) -> tuple[bool, float]:
        """(transposed, cell size): layers x heads, or heads x layers when the cells come out larger."""
        layers, heads = self._shape
        if not layers:
            return False, 24.0

        def size(rows: int, cols: int, gap_w: float, gap_h: float) -> float:
            w = (self.width() - self._label_w() - gap_w - 6) / cols - GAP
            h = (self.height() - self._header_h() - gap_h - 4) / rows - GAP
            return float(max(12.0, min(w, h, 84.0)))

        normal = size(layers, heads + 1, MEAN_GAP, 0.0)
        flipped = size(heads + 1, layers, 0.0, MEAN_GAP)
        return (True, flipped) if flipped > normal else (False, normal)

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(360, 240)

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        layers, heads = self._shape
        small = min(heads + 1, max(layers, 1))
        return QSize(int(self._label_w() + MEAN_GAP + small * 15 + 10), int(self._header_h() + MEAN_GAP + small * 15 + 10))

    # ------------------------------------------------------------ painting
    def paintEvent(self, event) -> None:  # noqa: N802
        painter = QPainter(self)
        layers, heads = self._shape
        if self._mosaic is None:
            painter.setPen(QColor(theme.current().colours.hint_ink))
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, "All layers × heads appear here.")
            painter.end()
            return
        painter.setFont(self._small)
        painter.setPen(QColor(theme.current().colours.token_id_ink))
        t = self._thumb
        transposed = self.transposed()
        columns = list(range(heads)) + [MEAN]
        for head in columns:
            r = self.cell_rect(0, head)
            label = "mean" if head == MEAN else (f"H{head}" if transposed else str(head))
            if transposed:
                painter.drawText(QRectF(0, r.top(), self._label_w() - 4, r.height()),
                                 Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, label)
            else:
                painter.drawText(QRectF(r.center().x() - r.width(), 0, 2 * r.width(), self._header_h() - 2),
                                 Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignBottom, label)
        for layer in range(layers):
            r = self.cell_rect(layer, 0)
            if transposed:
                painter.drawText(QRectF(r.center().x() - r.width(), 0, 2 * r.width(), self._header_h() - 2),
                                 Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignBottom, f"L{layer}")
            else:
                painter.drawText(QRectF(0, r.top(), self._label_w() - 4, r.height()),
                                 Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, f"L{layer}")
            for col, head in enumerate(columns):
                painter.drawImage(self.cell_rect(layer, head), self._mosaic, QRect(col * t, layer * t, t, t))
        painter.setPen(QPen(QColor(theme.current().colours.splitter), theme.current().metrics.chip_border_width))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        for layer in range(layers):
            for head in list(range(heads)) + [MEAN]:
                painter.drawRect(self.cell_rect(layer, head).adjusted(-0.5, -0.5, 0.5, 0.5))
        self._paint_selection(painter)
        painter.end()

    def _paint_selection(self, painter: QPainter) -> None:
        layer, heads = self._selected
        if not 0 <= layer < self._shape[0]:
            return
        painter.setPen(QPen(QColor(theme.current().colours.hover), theme.current().metrics.hover_width))
        for head in heads if len(heads) < self._shape[1] else [MEAN]:
            if head == MEAN or 0 <= head < self._shape[1]:
                painter.drawRect(self.cell_rect(layer, head).adjusted(-1.5, -1.5, 1.5, 1.5))

    def mousePressEvent(self, event) -> None:  # noqa: N802
        cell = self.cell_at(event.position())
        if cell is not None and event.button() == Qt.MouseButton.LeftButton:
            self.cell_clicked.emit(*cell)
        super().mousePressEvent(event)
