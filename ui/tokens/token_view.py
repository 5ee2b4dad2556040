"""The token view: the text as the model sees it, painted as chips.

One widget paints every token with ``QPainter`` (no widget per token). The
subwords of one word share a rounded box with thin separators between them,
words are set apart by a gap, special tokens are muted, the second text of a
pair is tinted, and the rows wrap to the width. Hovering a chip shows its
token, id, character span and the text it covers.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QPointF, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from lm_workbench.engine.tokens import TokenizedText
from lm_workbench.ui import theme
from lm_workbench.ui.widgets.hover import HoverTips
from lm_workbench.ui.widgets.token_layout import TokenLayout, layout_tokens
from lm_workbench.ui.widgets.canvas import on_base

RADIUS = 6.0


def _chip(kind: str) -> theme.Chip:
    """The colours of a token box by kind: "a" (text), "b" (pair), "special"."""
    c = theme.current().colours
    return {"a": c.segment_a, "b": c.segment_b}.get(kind, c.special_token)


class TokenView(HoverTips, QWidget):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._tt: TokenizedText | None = None
        self._hint = "Type a sentence above to see how the model splits it into tokens."
        self._layout: TokenLayout | None = None
        self._position: dict[int, tuple[int, int, int]] = {}  # token -> (word no., subword no., subwords)
        self.setMouseTracking(True)
        on_base(self, QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred, height_for_width=True)
        self._set_fonts()
        theme.follow(self, self._apply_tokens)

    def _set_fonts(self) -> None:
        fonts = theme.current().fonts
        self._token_font = theme.sized_font(self.font(), fonts.token_delta)
        self._id_font = theme.sized_font(self.font(), fonts.token_id_delta)

    def _apply_tokens(self) -> None:
        self._set_fonts()
        self._relayout()

    # ----------------------------------------------------------------- API
    def set_tokenized(self, tt: TokenizedText | None) -> None:
        """Show ``tt`` (None shows the hint)."""
        self._tt = tt if tt is not None and len(tt) else None
        self.forget_hover()
        self._position = {}
        if self._tt is not None:
            word = 0
            for group in self._tt.word_groups():
                if not self._tt.special[group[0]]:
                    word += 1
                for k, i in enumerate(group):
                    self._position[i] = (word, k + 1, len(group))
        self._relayout()

    def show_hint(self, text: str) -> None:
        """Clear the tokens and show ``text`` instead."""
        self._hint = text
        self.set_tokenized(None)

    def hint(self) -> str | None:
        """The hint shown instead of tokens, or None when tokens are shown."""
        return self._hint if self._tt is None else None

    def tokenized(self) -> TokenizedText | None:
        return self._tt

    def tokens(self) -> list[str]:
        return list(self._tt.tokens) if self._tt else []

    def word_groups(self) -> list[list[int]]:
        return self._tt.word_groups() if self._tt else []

    def chip_rect(self, index: int) -> QRectF | None:
        layout = self._current_layout()
        for chip in layout.chips if layout else ():
            if chip.index == index:
                return QRectF(chip.rect)
        return None

    def index_at(self, x: float, y: float) -> int | None:
        layout = self._current_layout()
        return layout.chip_at(x, y) if layout else None

    def tooltip_text(self, i: int) -> str:
        """The hover text of token ``i`` (rich text)."""
        tt = self._tt
        if tt is None or not 0 <= i < len(tt):
            return ""
        token = html.escape(tt.tokens[i])
        size = theme.current().fonts.pt(theme.current().fonts.token_delta)
        head = f"<b style='font-size:{size:g}pt'>{token}</b> &nbsp;·&nbsp; id {tt.ids[i]} &nbsp;·&nbsp; position {i}"
        if tt.special[i]:
            return f"{head}<br>special token: added by the tokenizer, covers no text"
        start, end = tt.offsets[i]
        source, which = (tt.pair or "", "pair") if tt.segments[i] == 1 else (tt.text, "text")
        covers = html.escape(source[start:end])
        word, k, n = self._position.get(i, (0, 1, 1))
        mark = theme.current().colours.text_highlight_bg
        lines = [
            head,
            f"characters {start}–{end} of the {which}: “<span style='background:{mark}'>{covers}</span>”",
            f"word {word}" + (f", subword {k} of {n}" if n > 1 else " (a whole word)"),
        ]
        return "<br>".join(lines)

    # ------------------------------------------------------------ geometry
    def hasHeightForWidth(self) -> bool:  # noqa: N802 (Qt API)
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802
        if self._tt is None:
            return 120
        return int(self._layout_for(width).height) + 1

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(480, self.heightForWidth(480))

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        return QSize(160, 80)

    def resizeEvent(self, event) -> None:  # noqa: N802
        self._layout = None
        super().resizeEvent(event)

    def _layout_for(self, width: float) -> TokenLayout:
        assert self._tt is not None
        return layout_tokens(self._tt, width, QFontMetricsF(self._token_font), QFontMetricsF(self._id_font))

    def _current_layout(self) -> TokenLayout | None:
        if self._tt is None:
            return None
        if self._layout is None or self._layout.width != self.width():
            self._layout = self._layout_for(self.width())
        return self._layout

    def _relayout(self) -> None:
        self._layout = None
        self.updateGeometry()
        self.update()

    # ------------------------------------------------------------ painting
    def paintEvent(self, event) -> None:  # noqa: N802
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        layout = self._current_layout()
        if layout is None:
            self._paint_hint(painter)
        else:
            self._paint_tokens(painter, layout)
        painter.end()

    def _paint_hint(self, painter: QPainter) -> None:
        painter.setPen(QColor(theme.current().colours.hint_ink))
        font = QFont(self.font())
        font.setItalic(True)
        painter.setFont(font)
        area = self.rect().adjusted(20, 20, -20, -20)
        painter.drawText(area, Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, self._hint)

    def _paint_tokens(self, painter: QPainter, layout: TokenLayout) -> None:
        tt = self._tt
        assert tt is not None
        chips = {c.index: c for c in layout.chips}
        fm_token = QFontMetricsF(self._token_font)
        c, m = theme.current().colours, theme.current().metrics
        for box in layout.boxes:
            fill, border, ink = _chip(box.kind)
            pen = QPen(QColor(border), m.chip_border_width)
            if box.kind == "special":
                pen.setStyle(Qt.PenStyle.DashLine)
            painter.setPen(pen)
            painter.setBrush(QColor(fill))
            painter.drawRoundedRect(box.rect.adjusted(0.5, 0.5, -0.5, -0.5), RADIUS, RADIUS)
            painter.setPen(QPen(QColor(border if box.kind != "a" else c.subword_separator), m.chip_border_width))
            for i in box.chips[1:]:
                r = chips[i].rect
                painter.drawLine(r.topLeft() + _pt(0, 6), r.bottomLeft() + _pt(0, -6))
            for i in box.chips:
                self._paint_chip(painter, chips[i].rect, chips[i].label, tt.ids[i], box.kind, fm_token)
        hover = self.hovered_part()
        if hover is not None and hover in chips:
            painter.setPen(QPen(QColor(c.hover), m.hover_width))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(chips[hover].rect.adjusted(1, 1, -1, -1), RADIUS - 1, RADIUS - 1)

    def _paint_chip(
        self, painter: QPainter, rect: QRectF, label: str, token_id: int, kind: str, fm_token: QFontMetricsF
    ) -> None:
        _, _, ink = _chip(kind)
        font = QFont(self._token_font)
        font.setItalic(kind == "special")
        painter.setFont(font)
        painter.setPen(QColor(ink))
        top = QRectF(rect.left(), rect.top() + 4, rect.width(), fm_token.height())
        painter.drawText(top, Qt.AlignmentFlag.AlignCenter, label)
        painter.setFont(self._id_font)
        painter.setPen(QColor(theme.current().colours.token_id_ink))
        bottom = QRectF(rect.left(), top.bottom() + 1, rect.width(), rect.bottom() - top.bottom() - 4)
        painter.drawText(bottom, Qt.AlignmentFlag.AlignCenter, str(token_id))

    # ----------------------------------------------------------------- hover
    def part_at(self, pos: QPointF) -> int | None:
        return self.index_at(pos.x(), pos.y())

    def part_tip(self, part: int) -> str:
        return self.tooltip_text(part)

    def part_tip_rect(self, part: int) -> QRect | None:
        rect = self.chip_rect(part)
        return None if rect is None else rect.toRect()


def _pt(x: float, y: float) -> QPointF:
    return QPointF(x, y)
