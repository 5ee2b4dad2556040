"""A row of token chips that grows as tokens arrive: the scored prompt, or a generation as it streams.

Each chip is one token (its text with spaces made visible); a chip may carry
a probability, drawn as a bar along its foot and given on hover with the
token id. Kinds: ``prompt`` (the text the model reads), ``answer`` (the
answer slot), ``generated`` (a new token). Painted in one widget; colours from
the theme when painting.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from lm_workbench.ui import theme
from lm_workbench.ui.widgets.hover import HoverTips
from lm_workbench.ui.widgets.token_layout import display_label
from lm_workbench.ui.widgets.canvas import on_base

PAD_X, PAD_Y, GAP, MARGIN, BAR_H, RADIUS = 5.0, 3.0, 3.0, 6.0, 3.0, 4.0


@dataclass(frozen=True)
class StreamToken:
    text: str
    token_id: int | None = None
    probability: float | None = None
    kind: str = "prompt"  # prompt | answer | generated


class TokenStream(HoverTips, QWidget):
    def __init__(self, hint: str = "", parent: QWidget | None = None):
        super().__init__(parent)
        self._tokens: list[StreamToken] = []
        self._rects: list[QRectF] = []
        self._hint = hint
        self.setMouseTracking(True)
        on_base(self, QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred, height_for_width=True)

    # ----------------------------------------------------------------- API
    def set_tokens(self, tokens: list[StreamToken]) -> None:
        self._tokens = list(tokens)
        self._changed()

    def append(self, token: StreamToken) -> None:
        self._tokens.append(token)
        self._changed()

    def clear(self, hint: str | None = None) -> None:
        if hint is not None:
            self._hint = hint
        self._tokens = []
        self._changed()

    def tokens(self) -> list[StreamToken]:
        return list(self._tokens)

    def chip_rect(self, index: int) -> QRectF:
        self._layout(self.width())
        return QRectF(self._rects[index])

    def tooltip_text(self, index: int) -> str:
        t = self._tokens[index]
        parts = [repr(t.text)]
        if t.token_id is not None:
            parts.append(f"id {t.token_id}")
        if t.probability is not None:
            parts.append(f"p = {t.probability:.4f}")
        if t.kind == "answer":
            parts.append("the answer slot")
        return " · ".join(parts)

    # ------------------------------------------------------------ geometry
    def _metrics(self) -> QFontMetricsF:
        return QFontMetricsF(theme.sized_font(self.font(), theme.current().fonts.token_delta))

    def _layout(self, width: float) -> float:
        fm = self._metrics()
        h = fm.height() + 2 * PAD_Y + BAR_H
        x, y = MARGIN, MARGIN
        self._rects = []
        for token in self._tokens:
            w = fm.horizontalAdvance(display_label(token.text)) + 2 * PAD_X
            if x > MARGIN and x + w > width - MARGIN:
                x, y = MARGIN, y + h + GAP
            self._rects.append(QRectF(x, y, w, h))
            x += w + GAP
        return y + h + MARGIN

    def hasHeightForWidth(self) -> bool:  # noqa: N802 (Qt API)
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802
        return int(self._layout(width)) + 1

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(400, self.heightForWidth(max(self.width(), 400)))

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        return QSize(100, int(self._metrics().height() + 2 * (PAD_Y + MARGIN) + BAR_H))

    def _changed(self) -> None:
        self.forget_hover()
        self.updateGeometry()
        self.update()

    def resizeEvent(self, event) -> None:  # noqa: N802
        self._layout(self.width())
        super().resizeEvent(event)

    # ------------------------------------------------------------ painting
    def _chip(self, kind: str) -> theme.Chip:
        c = theme.current().colours
        return {"answer": c.mask_kinds.masked, "generated": c.segment_b}.get(kind, c.segment_a)

    def paintEvent(self, event) -> None:  # noqa: N802
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        c, m = theme.current().colours, theme.current().metrics
        if not self._tokens:
            painter.setPen(QColor(c.hint_ink))
            painter.drawText(self.rect().adjusted(8, 4, -8, -4),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextWordWrap,
                             self._hint)
            painter.end()
            return
        self._layout(self.width())
        painter.setFont(theme.sized_font(self.font(), theme.current().fonts.token_delta))
        hover = self.hovered_part()
        for i, (token, rect) in enumerate(zip(self._tokens, self._rects)):
            chip = self._chip(token.kind)
            painter.setPen(QPen(QColor(chip.border), m.chip_border_width))
            painter.setBrush(QColor(chip.fill))
            painter.drawRoundedRect(rect.adjusted(0.5, 0.5, -0.5, -0.5), RADIUS, RADIUS)
            painter.setPen(QColor(chip.ink))
            painter.drawText(rect.adjusted(0, 0, 0, -BAR_H), Qt.AlignmentFlag.AlignCenter, display_label(token.text))
            if token.probability is not None:
                bar = QRectF(rect.left() + 2, rect.bottom() - BAR_H - 1, (rect.width() - 4) * token.probability,
                             BAR_H)
                painter.fillRect(bar, QColor(c.prob_bar))
            if i == hover:
                painter.setPen(QPen(QColor(c.hover), m.hover_width))
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRoundedRect(rect.adjusted(1, 1, -1, -1), RADIUS, RADIUS)
        painter.end()

    # ---------------------------------------------------------- interaction
    def index_at(self, x: float, y: float) -> int | None:
        for i, rect in enumerate(self._rects[: len(self._tokens)]):
            if rect.contains(x, y):
                return i
        return None

    def part_at(self, pos: QPointF) -> int | None:
        return self.index_at(pos.x(), pos.y())

    def part_tip(self, part: int) -> str:
        return self.tooltip_text(part)

    def part_tip_rect(self, part: int) -> QRect:
        return self._rects[part].toRect()
