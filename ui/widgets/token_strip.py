"""A token heat strip: each token of a text as a cell coloured by a signed score (an attribution).

Scores run through the diverging colormap on a scale symmetric about zero (±the largest |score|), so a
token that pushed the prediction up is red, one that pushed it down blue, and zero is the light middle.
An optional second band under each token shows a non-negative row (the raw attention of the predicted
position at a chosen layer, averaged over heads) through the sequential colormap, from 0 to its largest
value. Cells wrap onto more lines when the text is long. Hovering a cell shows its token, score and
attention in the tooltip and ``hover_text()``; the predicted position is outlined.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from lm_workbench.ui import theme
from lm_workbench.ui.widgets.colormap import color_at, signed_color
from lm_workbench.ui.widgets.hover import HoverTips
from lm_workbench.ui.widgets.token_layout import display_label
from lm_workbench.ui.widgets.canvas import on_base


class TokenStrip(HoverTips, QWidget):
    """Tokens coloured by signed scores, with an optional attention band under each."""

    tip_on_move = True

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._tokens: list[str] = []
        self._scores = np.zeros(0)
        self._attention: np.ndarray | None = None
        self._marked: int | None = None
        self._title = ""
        self._attention_title = ""
        self._rects: list[QRectF] = []
        self.setMouseTracking(True)
        on_base(self, vertical=QSizePolicy.Policy.Minimum)
        self._set_font()
        theme.follow(self, self._apply_tokens)

    def _set_font(self) -> None:
        self._font = theme.sized_font(self.font(), theme.current().fonts.token_delta)
        self._fm = QFontMetricsF(self._font)
        self._small = theme.sized_font(self.font(), theme.current().fonts.small_delta)
        self._fm_small = QFontMetricsF(self._small)

    def _apply_tokens(self) -> None:
        self._set_font()
        self._relayout()

    # ----------------------------------------------------------------- API
    def set_scores(self, tokens: Sequence[str], scores: Sequence[float], *, title: str = "",
                   attention: Sequence[float] | None = None, attention_title: str = "",
                   marked: int | None = None) -> None:
        """Show ``scores`` (one per token); ``attention`` (one per token, >= 0) adds the second band;
        ``marked`` outlines one token (the predicted position)."""
        if len(scores) != len(tokens) or (attention is not None and len(attention) != len(tokens)):
            raise ValueError("one score (and one attention weight) per token")
        self._tokens = [display_label(t) for t in tokens]
        self._scores = np.asarray(scores, dtype=np.float64)
        self._attention = None if attention is None else np.asarray(attention, dtype=np.float64)
        self._title, self._attention_title, self._marked = title, attention_title, marked
        self.forget_hover()
        self._relayout()

    def clear(self) -> None:
        self.set_scores([], [])

    def tokens(self) -> list[str]:
        return list(self._tokens)

    def scores(self) -> np.ndarray:
        return self._scores.copy()

    def attention(self) -> np.ndarray | None:
        return None if self._attention is None else self._attention.copy()

    def title(self) -> str:
        return self._title

    def scale(self) -> float:
        """The largest |score|: the colour scale runs over ±this."""
        return float(np.abs(self._scores).max()) if self._scores.size else 1.0

    def cell_color(self, i: int) -> QColor:
        return signed_color(float(self._scores[i]), self.scale())

    def attention_color(self, i: int) -> QColor:
        assert self._attention is not None
        top = float(self._attention.max()) or 1.0
        return color_at(float(self._attention[i]) / top)

    def cell_rect(self, i: int) -> QRectF:
        return QRectF(self._rects[i])

    # ------------------------------------------------------------ geometry
    def _band_h(self) -> float:
        return self._fm_small.height() * 0.6

    def _cell_h(self) -> float:
        m = theme.current().metrics
        return self._fm.height() + 2 * m.compact_spacing + (self._band_h() if self._attention is not None else 0)

    def _header_h(self) -> float:
        return self._fm_small.height() + theme.current().metrics.row_spacing if self._title else 0.0

    def _relayout(self) -> None:
        m = theme.current().metrics
        pad, gap = m.row_spacing, m.compact_spacing
        width = max(self.width(), 1)
        x, y = float(gap), self._header_h() + gap
        self._rects = []
        for token in self._tokens:
            w = self._fm.horizontalAdvance(token or " ") + 2 * pad
            if x + w > width - gap and x > gap:
                x, y = float(gap), y + self._cell_h() + gap
            self._rects.append(QRectF(x, y, w, self._cell_h()))
            x += w + gap
        self.updateGeometry()
        self.update()

    def _content_h(self) -> float:
        gap = theme.current().metrics.compact_spacing
        bottom = max((r.bottom() for r in self._rects), default=self._header_h())
        return bottom + gap + (self._fm_small.height() + gap if self._attention is not None else 0)

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._relayout()

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(max(self.width(), 200), int(self._content_h()) + 1)

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        return QSize(100, int(self._content_h()) + 1)

    # ----------------------------------------------------------------- hover
    def part_at(self, pos: QPointF) -> int | None:
        for i, rect in enumerate(self._rects):
            if rect.contains(pos):
                return i
        return None

    def part_tip(self, part: int) -> str:
        if not 0 <= part < len(self._tokens):
            return ""
        text = f"{self._tokens[part]} (token {part}): score {self._scores[part]:+.4f}"
        if self._attention is not None:
            text += f" · attention {self._attention[part]:.4f}"
        return text

    # -------------------------------------------------------------- painting
    def paintEvent(self, event) -> None:  # noqa: N802
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        c, m = theme.current().colours, theme.current().metrics
        if self._title:
            bold = QFont(self._small)
            bold.setBold(True)
            painter.setFont(bold)
            painter.setPen(QColor(c.label_ink))
            painter.drawText(QRectF(m.compact_spacing, 0, self.width(), self._header_h()),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, self._title)
        band = self._band_h() if self._attention is not None else 0.0
        for i, rect in enumerate(self._rects):
            fill = self.cell_color(i)
            text_rect = QRectF(rect.left(), rect.top(), rect.width(), rect.height() - band)
            painter.fillRect(text_rect, fill)
            if self._attention is not None:
                painter.fillRect(QRectF(rect.left(), text_rect.bottom(), rect.width(), band), self.attention_color(i))
            painter.setPen(QPen(QColor(c.frame), m.chip_border_width))
            painter.drawRect(rect)
            painter.setFont(self._font)
            painter.setPen(theme.readable_ink(fill))
            painter.drawText(text_rect, Qt.AlignmentFlag.AlignCenter, self._tokens[i])
            if i == self._marked or i == self.hovered_part():
                painter.setPen(QPen(QColor(c.hover), m.hover_width))
                painter.drawRect(rect)
        if self._attention is not None and self._rects:
            painter.setFont(self._small)
            painter.setPen(QColor(c.token_id_ink))
            bottom = max(r.bottom() for r in self._rects)
            painter.drawText(QRectF(m.compact_spacing, bottom + m.compact_spacing, self.width(),
                                    self._fm_small.height()), Qt.AlignmentFlag.AlignLeft,
                             f"{self._attention_title}  ·  colour scale ±{self.scale():.3g}")
        painter.end()
