"""The drawing of one attention step: vectors as rows of coloured cells, or one number per token as bars.

``show_rows`` draws a [rows, d_k] matrix (the query, the keys, q ⊙ k, the
weighted values, the output), one row per token, each cell coloured by the
theme's colormap with 0 in its middle (symmetric around 0, so the sign shows);
``show_bars`` draws one signed number per token (q · k, the scaled scores,
the softmax weights) as a bar from a zero line with its value beside it.
Rows of masked keys are greyed out; the query's own row is outlined. All
sizes, colours, fonts and line widths come from the current theme tokens.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QWidget

from lm_workbench.ui import theme
from lm_workbench.ui.widgets.token_layout import display_label
from lm_workbench.ui.widgets.cell_text import draw_cell_text
from lm_workbench.ui.widgets.colormap import color_at
from lm_workbench.ui.widgets.canvas import SmallFontCanvas


class StepCanvas(SmallFontCanvas, QWidget):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._kind = ""  # "rows" | "bars" | ""
        self._labels: list[str] = []
        self._data: np.ndarray | None = None
        self._highlight: int | None = None
        self._greyed: np.ndarray | None = None
        self._span = 1.0
        self._set_up_canvas()

    def _after_theme(self) -> None:
        self.updateGeometry()
        self.update()

    # ----------------------------------------------------------------- API
    def show_rows(self, labels: list[str], matrix: np.ndarray, highlight: int | None = None,
                  greyed: np.ndarray | None = None) -> None:
        self._show("rows", labels, np.atleast_2d(np.asarray(matrix, dtype=np.float64)), highlight, greyed)

    def show_bars(self, labels: list[str], values: np.ndarray, highlight: int | None = None,
                  greyed: np.ndarray | None = None) -> None:
        self._show("bars", labels, np.asarray(values, dtype=np.float64).ravel(), highlight, greyed)

    def clear(self) -> None:
        self._kind, self._labels, self._data = "", [], None
        self.update()

    def kind(self) -> str:
        return self._kind

    def data(self) -> np.ndarray | None:
        return None if self._data is None else self._data.copy()

    def labels(self) -> list[str]:
        return list(self._labels)

    def _show(self, kind: str, labels: list[str], data: np.ndarray, highlight: int | None,
              greyed: np.ndarray | None) -> None:
        self._kind, self._labels, self._data = kind, [display_label(t) for t in labels], data
        self._highlight = highlight
        self._greyed = None if greyed is None else np.asarray(greyed, dtype=bool)
        finite = np.abs(data[np.isfinite(data)])
        self._span = float(finite.max()) if finite.size and finite.max() > 0 else 1.0
        self.updateGeometry()
        self.update()

    def _min_row_h(self) -> float:
        return self._fm.height() + 2

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(480, 260)

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        """Tall enough for every row in a readable font (the panel scrolls the canvas when it is taller)."""
        m = theme.current().metrics
        rows = max(len(self._labels), 1)
        return QSize(240, int(rows * self._min_row_h() + 2 * m.group_spacing))

    # ------------------------------------------------------------ painting
    def row_span(self, row: int) -> tuple[int, int]:
        """(top, height) in pixels of ``row`` as drawn now."""
        _left, top, row_h = self._row_geometry()
        return int(top + row * row_h), max(int(row_h), 1)

    def _row_geometry(self) -> tuple[float, float, float]:
        """(left edge of the data, top, row height)."""
        m = theme.current().metrics
        label_w = max((self._fm.horizontalAdvance(s) for s in self._labels), default=0.0) + 2 * m.group_spacing
        rows = len(self._labels) or 1
        row_h = min(m.heatmap_max_cell, max(self._min_row_h(), (self.height() - 2 * m.group_spacing) / rows))
        return m.group_spacing + label_w, m.group_spacing, row_h

    def paintEvent(self, event) -> None:  # noqa: N802
        if self._data is None:
            return
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setFont(self._font)
        c, m = theme.current().colours, theme.current().metrics
        left, top, row_h = self._row_geometry()
        right = self.width() - m.group_spacing
        if self._kind == "rows":
            right -= self._paint_legend(painter, right)
        for r, label in enumerate(self._labels):
            y = top + r * row_h
            grey = self._greyed is not None and self._greyed[r]
            painter.setPen(QColor(c.hint_ink if grey else c.label_ink))
            painter.drawText(QRectF(m.group_spacing, y, left - 2 * m.group_spacing, row_h),
                             Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, label)
            row_rect = QRectF(left, y, right - left, row_h)
            if self._kind == "rows":
                self._paint_cells(painter, row_rect, self._data[r], grey)
            else:
                self._paint_bar(painter, row_rect, float(self._data[r]), grey)
            if r == self._highlight:
                painter.setPen(QPen(QColor(c.hover), m.hover_width))
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRect(QRectF(m.group_spacing / 2, y, right - m.group_spacing / 2, row_h))

    def _paint_legend(self, painter: QPainter, right: float) -> float:
        """The colour scale at the top right: -span, 0, +span; returns the width it takes."""
        c, m = theme.current().colours, theme.current().metrics
        text_w = self._fm.horizontalAdvance(f"+{self._span:.2f}")
        width = m.colour_bar_h * 2 + m.group_spacing + text_w
        bar = QRectF(right - width + m.group_spacing, m.group_spacing, m.colour_bar_h * 2, m.colour_bar_w)
        steps = 32
        painter.setPen(Qt.PenStyle.NoPen)
        for i in range(steps):  # top: +span, bottom: -span
            painter.setBrush(color_at(1.0 - (i + 0.5) / steps))
            painter.drawRect(QRectF(bar.left(), bar.top() + i * bar.height() / steps, bar.width(),
                                    bar.height() / steps + 1))
        painter.setPen(QPen(QColor(c.frame), m.chip_border_width))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(bar)
        painter.setPen(QColor(c.token_id_ink))
        x = bar.right() + m.tight_spacing
        painter.drawText(QPointF(x, bar.top() + self._fm.ascent()), f"+{self._span:.2f}")
        painter.drawText(QPointF(x, bar.center().y() + self._fm.ascent() / 2), "0")
        painter.drawText(QPointF(x, bar.bottom()), f"-{self._span:.2f}")
        return width + m.group_spacing

    def _paint_cells(self, painter: QPainter, rect: QRectF, values: np.ndarray, grey: bool) -> None:
        c, m = theme.current().colours, theme.current().metrics
        width = min(m.heatmap_max_cell, rect.width() / max(len(values), 1))
        for i, v in enumerate(values):
            cell = QRectF(rect.left() + i * width, rect.top() + 1, width, rect.height() - 2)
            t = 0.5 + 0.5 * v / self._span
            painter.setPen(QPen(QColor(c.frame), m.chip_border_width / 2))
            painter.setBrush(QColor(c.special_token.fill) if grey else color_at(t))
            painter.drawRect(cell)
            if cell.width() >= self._fm.horizontalAdvance("-0.00") + 4 and not grey:
                draw_cell_text(painter, cell, f"{v:.2f}", color_at(t), self._fm)

    def _paint_bar(self, painter: QPainter, rect: QRectF, value: float, grey: bool) -> None:
        c, m = theme.current().colours, theme.current().metrics
        text_w = self._fm.horizontalAdvance("masked -00.000") + m.group_spacing
        signed = bool((self._data < 0).any())
        area = QRectF(rect.left(), rect.top(), max(rect.width() - text_w, 1.0), rect.height())
        zero = area.center().x() if signed else area.left()
        half = area.width() / 2 if signed else area.width()
        painter.setPen(QPen(QColor(c.frame), m.chip_border_width))
        painter.drawLine(QPointF(zero, rect.top()), QPointF(zero, rect.bottom()))
        if grey or not np.isfinite(value):
            painter.setPen(QColor(c.hint_ink))
            painter.drawText(QRectF(area.right() + m.group_spacing, rect.top(), text_w, rect.height()),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, "masked")
            return
        length = half * value / self._span
        bar = QRectF(min(zero, zero + length), rect.top() + rect.height() * 0.2, abs(length), rect.height() * 0.6)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(c.prob_bar))
        painter.drawRect(bar)
        painter.setPen(QColor(c.ink))
        painter.drawText(QRectF(area.right() + m.group_spacing, rect.top(), text_w, rect.height()),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, f"{value:.3f}")
