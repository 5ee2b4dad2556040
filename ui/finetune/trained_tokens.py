"""One instruction example's tokens as cells coloured trained / not trained, as the masking lab colours labels.

A trained token (the loss is computed on it: an answer's token or the template's end-of-turn marker) takes the
masking lab's ``masked`` chip (a scored position); a token with label −100 (the prompt, the template's headers,
user and system turns) takes its ``ignored`` chip. Cells wrap to the widget's width; hovering one shows the token,
its position and whether it is trained.
"""

from __future__ import annotations

from typing import Sequence

from PySide6.QtCore import QPoint, QPointF, QRect, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

from lm_workbench.ui import theme
from lm_workbench.ui.widgets.hover import HoverTips
from lm_workbench.ui.widgets.token_layout import display_label

TRAINED, NOT_TRAINED = "masked", "ignored"  # the masking lab's chips (theme tokens ``mask_kinds``)
GAP = 3
MARGIN = 6
MAX_CELL_TEXT = 18


_WHITESPACE = str.maketrans({" ": "␣", "\n": "↵", "\t": "⇥", "\r": "↵"})  # decoded tokens: visible, not empty chips


def _short(text: str) -> str:
    text = display_label(text.translate(_WHITESPACE)) if text else ""
    return text if len(text) <= MAX_CELL_TEXT else text[: MAX_CELL_TEXT - 1] + "…"


def legend_html() -> str:
    chips = theme.current().colours.mask_kinds
    parts = []
    for kind, name in ((TRAINED, "trained (the loss is computed here)"),
                       (NOT_TRAINED, "not trained (label −100: prompt, template, other turns)")):
        fill, _border, ink = chips.get(kind)
        parts.append(f'<span style="background:{fill}; color:{ink};">&nbsp;{name}&nbsp;</span>')
    return "&nbsp; ".join(parts)


class TrainedLegend(QLabel):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setWordWrap(True)
        self.setText(legend_html())
        theme.follow(self, lambda: self.setText(legend_html()))


class TrainedTokens(HoverTips, QWidget):
    """Token cells in reading order, wrapped; see the module docstring. One paint, not a widget per cell."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Minimum)
        self.tokens: list[str] = []
        self.trained: list[bool] = []
        self._cells: list[QRect] = []
        self._height = 2 * MARGIN
        self._laid_out_for = -1
        self.setMinimumHeight(theme.current().metrics.mask_cell_h + 2 * MARGIN)
        theme.follow(self, lambda: (self._relayout(self.width()), self.update()))

    def set_tokens(self, tokens: Sequence[str], trained: Sequence[bool]) -> None:
        self.tokens, self.trained = list(tokens), [bool(t) for t in trained]
        self.forget_hover()
        self._relayout(self.width())
        self.update()

    def kinds(self) -> list[str]:
        return [TRAINED if t else NOT_TRAINED for t in self.trained]

    def _relayout(self, width: int) -> None:
        fm = QFontMetrics(QFont(self.font()))
        cell_h = theme.current().metrics.mask_cell_h
        avail = max(120, width - 2 * MARGIN)
        self._cells = []
        x, y = MARGIN, MARGIN
        for token in self.tokens:
            w = max(22, fm.horizontalAdvance(_short(token)) + 12)
            if x > MARGIN and x + w > MARGIN + avail:
                x, y = MARGIN, y + cell_h + GAP
            self._cells.append(QRect(x, y, w, cell_h))
            x += w + GAP
        self._height = (y + cell_h + MARGIN) if self.tokens else cell_h + 2 * MARGIN
        self._laid_out_for = width
        if self.minimumHeight() != self._height:
            self.setMinimumHeight(self._height)
            self.updateGeometry()

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(480, self._height)

    def resizeEvent(self, event) -> None:  # noqa: N802
        if event.size().width() != self._laid_out_for:
            self._relayout(event.size().width())
        super().resizeEvent(event)

    def paintEvent(self, event) -> None:  # noqa: N802
        if self._laid_out_for != self.width():
            self._relayout(self.width())
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        c, m = theme.current().colours, theme.current().metrics
        painter.fillRect(self.rect(), QColor(c.base_bg))
        hover = self.hovered_part()
        for i, rect in enumerate(self._cells):
            fill, border, ink = c.mask_kinds.get(TRAINED if self.trained[i] else NOT_TRAINED)
            hot = hover == i
            painter.setPen(QPen(QColor(c.hover if hot else border), m.hover_width if hot else m.chip_border_width))
            painter.setBrush(QColor(fill))
            painter.drawRoundedRect(rect.adjusted(0, 0, -1, -1), 3, 3)
            painter.setPen(QColor(ink))
            painter.drawText(rect, int(Qt.AlignmentFlag.AlignCenter), _short(self.tokens[i]))
        painter.end()

    def cell_at(self, pos: QPoint) -> int | None:
        return next((i for i, rect in enumerate(self._cells) if rect.contains(pos)), None)

    def tooltip_at(self, pos: QPoint) -> str:
        hit = self.cell_at(pos)
        return self.part_tip(hit) if hit is not None else ""

    def part_at(self, pos: QPointF) -> int | None:
        return self.cell_at(pos.toPoint())

    def part_tip(self, part: int) -> str:
        state = "trained: the loss is computed on it" if self.trained[part] else "not trained (label −100)"
        return f"{self.tokens[part]!r} · position {part}\n{state}"
