"""Where each token chip goes: a flow layout of words that wraps to a width.

Pure geometry (no painting), so the token view and its tests share it.
Each word (a group of subword tokens) becomes one box; a word wider than a
line is split into several boxes. Chips show the token and, below it, its id.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QRectF
from PySide6.QtGui import QFontMetricsF

from lm_workbench.engine.tokens import TokenizedText

MARGIN = 10.0
PAD_X = 7.0
PAD_Y = 4.0
WORD_GAP = 8.0
LINE_GAP = 8.0
ID_GAP = 1.0

# Markers byte-level BPE and SentencePiece put inside tokens, shown readably.
_VISIBLE = str.maketrans({"Ġ": "␣", "▁": "␣", "Ċ": "↵", "ĉ": "⇥"})


def display_label(token: str) -> str:
    """The token as a chip shows it: space and newline markers made visible."""
    label = token.translate(_VISIBLE)
    return label if label else "∅"


def token_kind(tt: TokenizedText, i: int) -> str:
    """"special", "b" (second text of a pair) or "a"."""
    if tt.special[i]:
        return "special"
    return "b" if tt.segments[i] == 1 else "a"


@dataclass
class Chip:
    index: int
    rect: QRectF
    label: str


@dataclass
class Box:
    rect: QRectF
    kind: str
    chips: list[int] = field(default_factory=list)  # token indices, left to right


@dataclass
class TokenLayout:
    width: float
    height: float
    chips: list[Chip]
    boxes: list[Box]

    def chip_at(self, x: float, y: float) -> int | None:
        for chip in self.chips:
            if chip.rect.contains(x, y):
                return chip.index
        return None


def chip_height(fm_token: QFontMetricsF, fm_id: QFontMetricsF) -> float:
    return PAD_Y + fm_token.height() + ID_GAP + fm_id.height() + PAD_Y


def layout_tokens(
    tt: TokenizedText, width: float, fm_token: QFontMetricsF, fm_id: QFontMetricsF
) -> TokenLayout:
    """Place the chips of ``tt`` in rows no wider than ``width`` (at least one chip a row)."""
    h = chip_height(fm_token, fm_id)
    right = max(width - MARGIN, MARGIN + 1)
    chips: list[Chip] = []
    boxes: list[Box] = []
    x, y = MARGIN, MARGIN
    for group in tt.word_groups():
        labels = [display_label(tt.tokens[i]) for i in group]
        widths = [
            max(fm_token.horizontalAdvance(lab), fm_id.horizontalAdvance(str(tt.ids[i]))) + 2 * PAD_X
            for i, lab in zip(group, labels)
        ]
        if x > MARGIN and x + sum(widths) > right:
            x, y = MARGIN, y + h + LINE_GAP
        kind = token_kind(tt, group[0])
        box: Box | None = None
        for i, lab, w in zip(group, labels, widths):
            if box is not None and x + w > right:  # a word longer than a line: split it
                x, y = MARGIN, y + h + LINE_GAP
                box = None
            rect = QRectF(x, y, w, h)
            chips.append(Chip(i, rect, lab))
            if box is None:
                box = Box(QRectF(rect), kind)
                boxes.append(box)
            else:
                box.rect = box.rect.united(rect)
            box.chips.append(i)
            x += w
        x += WORD_GAP
    height = (y + h + MARGIN) if chips else 0.0
    return TokenLayout(width, height, chips, boxes)
