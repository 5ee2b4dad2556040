"""One instruction example's tokens as cells coloured trained / not trained, as the masking lab colours labels.

A trained token (the loss is computed on it: an answer's token or the template's end-of-turn marker) takes the
masking lab's ``masked`` chip (a scored position); a token with label −100 (the prompt, the template's headers,
user and system turns) takes its ``ignored`` chip. Cells wrap to the widget's width; hovering one shows the token,
its position and whether it is trained.
"""

from __future__ import annotations

from typing import Sequence

from PySide6.QtCore import QPoint, QPointF, QRect, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPen
from PySide6.QtWidgets import QWidget

from lm_workbench.ui import theme
from lm_workbench.ui.widgets.chip_canvas import MARGIN, ChipCanvas, ChipLegend, legend_html, short_label

TRAINED, NOT_TRAINED = "masked", "ignored"  # the masking lab's chips (theme tokens ``mask_kinds``)
GAP = 3
_WHITESPACE = str.maketrans({" ": "␣", "\n": "↵", "\t": "⇥", "\r": "↵"})  # decoded tokens: visible, not empty chips
LEGEND = ((TRAINED, "trained (the loss is computed here)"),
          (NOT_TRAINED, "not trained (label −100: prompt, template, other turns)"))


def _short(text: str) -> str:
    return short_label(text.translate(_WHITESPACE)) if text else ""


class TrainedLegend(ChipLegend):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(lambda: legend_html(LEGEND), parent)


class TrainedTokens(ChipCanvas):
    """Token cells in reading order, wrapped; see the module docstring. One paint, not a widget per cell."""

    def __init__(self, parent: QWidget | None = None):
        self.tokens: list[str] = []
        self.trained: list[bool] = []
        self._cells: list[QRect] = []
        super().__init__(parent)

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
        self._laid_out(width, (y + cell_h + MARGIN) if self.tokens else cell_h + 2 * MARGIN)

    def paintEvent(self, event) -> None:  # noqa: N802
        painter, c, m = self._begin_paint()
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
