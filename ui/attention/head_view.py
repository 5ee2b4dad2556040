"""The head view (after BertViz): queries on the left, keys on the right, a line per weight.

One widget paints everything with ``QPainter``. A line's opacity and width
grow with its weight and its colour is its head's. The lines are prepared
once per selection (``head_lines.prepare_lines``); the picture of all lines
is cached in a pixmap, so hovering a token (which shows only that token's
lines) repaints the visible labels and a few hundred lines. A coloured bar
beside each token marks its segment (text, pair, special).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import numpy as np
from PySide6.QtCore import QLineF, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPaintEngine, QPen, QPixmap
from PySide6.QtWidgets import QSizePolicy, QWidget

from lm_workbench.ui import theme
from lm_workbench.ui.widgets.token_layout import display_label
from lm_workbench.ui.attention.head_lines import HeadLines, prepare_lines
from lm_workbench.ui.widgets.colormap import head_color
from lm_workbench.ui.widgets.canvas import on_base

if TYPE_CHECKING:
    from lm_workbench.attention.for_views import AttentionSide

MARGIN = 8.0
HEADER = 26.0
BAR = 4.0
GAP = 6.0  # between a label column and the line area
MAX_LABEL = 170.0
BUCKETS = 16  # pen steps per head (weights keep full precision)
PIXEL_BUDGET = 6_000_000  # stroked pixels of the all-lines picture (~0.2 s to draw once)
SIDES = ("query", "key")


def _segment_color(segment: int | None, special: bool) -> QColor:
    c = theme.current().colours
    if special:
        return QColor(c.special_token.border)
    return QColor(c.segment_b.border if segment == 1 else c.segment_a.border)


def _pen(head: int, bucket: int) -> QPen:
    """An opaque pen whose colour fades to white as the weight falls.

    Opaque lines draw about ten times faster than translucent ones with Qt's
    raster engine; on the white background they look the same, and the
    strongest lines are drawn last, on top.
    """
    w = bucket / BUCKETS
    a = min(1.0, 0.12 + 0.88 * w)
    c = head_color(head)
    color = QColor(round(255 - a * (255 - c.red())), round(255 - a * (255 - c.green())),
                   round(255 - a * (255 - c.blue())))
    m = theme.current().metrics
    return QPen(color, m.head_line_width + m.head_line_extra_width * w, Qt.PenStyle.SolidLine, Qt.PenCapStyle.FlatCap)


class HeadView(QWidget):
    lines_changed = Signal(int, int)  # lines drawn now, lines above the threshold in all

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._side: AttentionSide | None = None
        self._lines: HeadLines | None = None
        self._labels: tuple[list[str], list[str]] = ([], [])
        self._hover: tuple[int, int] | None = None  # (0 query / 1 key, row)
        self._cache: QPixmap | None = None
        self._overview: np.ndarray | None = None  # the lines drawn when no token is hovered
        self._drawn = np.zeros((0, 4))
        self._hint = "Type a sentence above to see where each token looks."
        self._col = 80.0
        self.setMouseTracking(True)
        on_base(self, vertical=QSizePolicy.Policy.Preferred)
        self._set_fonts()
        theme.follow(self, self._apply_tokens)

    def _set_fonts(self) -> None:
        self._font = QFont(self.font())
        self._bold = QFont(self._font)
        self._bold.setBold(True)
        self._fonts = {}
        for italic in (False, True):
            for bold in (False, True):
                font = QFont(self._font)
                font.setItalic(italic)
                font.setBold(bold)
                self._fonts[(italic, bold)] = font
        fm = QFontMetricsF(self._font)
        self._fm = fm
        self.row_h = max(theme.current().metrics.head_view_row_min, fm.height() + 5.0)

    def _apply_tokens(self) -> None:
        self._set_fonts()
        self._invalidate()  # the cached picture of all lines has the old pens

    # ----------------------------------------------------------------- API
    def set_side(self, side: AttentionSide | None) -> None:
        self._side = side
        self._lines = None
        self._hover = None
        self._invalidate()

    def show_hint(self, text: str) -> None:
        self._hint = text
        self.set_side(None)

    def set_selection(self, layer: int, heads: Sequence[int], *, hide_special: bool = False,
                      threshold: float = 0.01) -> None:
        """Prepare the lines of ``heads`` in ``layer`` (the expensive step; hovering reuses it)."""
        if self._side is None or not heads:
            self._lines = None
        else:
            self._lines = prepare_lines(self._side, layer, list(heads), hide=hide_special, threshold=threshold)
        self._hover = None
        self._invalidate()

    def lines(self) -> HeadLines | None:
        return self._lines

    def token_rect(self, side: str, index: int) -> QRectF | None:
        """Where token ``index`` (of the full token list) is drawn on ``side`` ("query"/"key")."""
        if self._lines is None:
            return None
        which = SIDES.index(side)
        shown = self._lines.queries if which == 0 else self._lines.keys
        rows = np.flatnonzero(shown == index)
        return self._label_rect(which, int(rows[0])) if len(rows) else None

    def drawn_lines(self) -> np.ndarray:
        """[n, 4] (query, key, head, weight) of every line the last paint drew."""
        return self._drawn.copy()

    def hovered(self) -> tuple[str, int] | None:
        """("query" | "key", token index) under the mouse, if any."""
        if self._hover is None or self._lines is None:
            return None
        which, row = self._hover
        shown = self._lines.queries if which == 0 else self._lines.keys
        return SIDES[which], int(shown[row])

    def visible_line_count(self) -> int:
        return len(self._visible())

    def total_line_count(self) -> int:
        return len(self._lines) if self._lines is not None else 0

    # ------------------------------------------------------------ geometry
    def _rows(self) -> int:
        if self._lines is None:
            return 0
        return max(len(self._lines.queries), len(self._lines.keys))

    def _label_rect(self, which: int, row: int) -> QRectF:
        y = HEADER + row * self.row_h
        x = MARGIN + BAR + 3 if which == 0 else self.width() - MARGIN - BAR - 3 - self._col
        return QRectF(x, y, self._col, self.row_h)

    def _anchor_x(self, which: int) -> float:
        return MARGIN + BAR + 3 + self._col + GAP if which == 0 else self.width() - MARGIN - BAR - 3 - self._col - GAP

    def _row_y(self, rows: np.ndarray) -> np.ndarray:
        return HEADER + (rows + 0.5) * self.row_h

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(420, int(HEADER + self._rows() * self.row_h + MARGIN))

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        bold = QFontMetricsF(self._bold)  # the two column headers side by side, whole
        headers = bold.horizontalAdvance("Query (from)") + bold.horizontalAdvance("Key (to)") + 2 * MARGIN + 24
        return QSize(int(max(2 * self._col + 2 * (MARGIN + BAR + 3 + GAP) + 60, headers)), 80)

    def _relayout(self) -> None:
        if self._side is not None and self._lines is not None:
            tokens = self._side.query_tokens, self._side.key_tokens
            shown = self._lines.queries, self._lines.keys
            self._labels = ([display_label(tokens[0][i]) for i in shown[0]],
                            [display_label(tokens[1][i]) for i in shown[1]])
            widest = max((self._fm.horizontalAdvance(t) for t in self._labels[0] + self._labels[1]), default=40)
            self._col = min(MAX_LABEL, max(48.0, widest + 10.0))
            elide = Qt.TextElideMode.ElideRight
            self._labels = tuple([self._fm.elidedText(t, elide, self._col - 8) for t in column]
                                 for column in self._labels)
        else:
            self._labels = ([], [])
        empty_h = theme.current().metrics.head_view_min_h
        self.setMinimumHeight(int(HEADER + self._rows() * self.row_h + MARGIN) if self._rows() else empty_h)
        self.setMinimumWidth(self.minimumSizeHint().width())
        self.updateGeometry()

    def _invalidate(self) -> None:
        self._relayout()
        self._cache = self._overview = None
        self.update()
        self._emit_count()

    def _emit_count(self) -> None:
        self.lines_changed.emit(self.visible_line_count(), self.total_line_count())

    def resizeEvent(self, event) -> None:  # noqa: N802
        self._cache = None
        super().resizeEvent(event)

    def _overview_lines(self) -> np.ndarray:
        """Every line, or the strongest ones when all would take too long to draw."""
        if self._overview is None:
            lines = self._lines
            strongest = np.argsort(-lines.weight, kind="stable")
            dy = (lines.q_row[strongest] - lines.k_row[strongest]) * self.row_h
            cost = np.hypot(200.0, dy) * (1 + 3 * lines.weight[strongest])
            keep = strongest[: int(np.searchsorted(np.cumsum(cost), PIXEL_BUDGET, side="right"))]
            self._overview = np.sort(keep)
        return self._overview

    # ------------------------------------------------------------ painting
    def _visible(self) -> np.ndarray:
        if self._lines is None:
            return np.zeros(0, dtype=np.intp)
        if self._hover is None:
            return self._overview_lines()
        which, row = self._hover
        return self._lines.of_query_row(row) if which == 0 else self._lines.of_key_row(row)

    def paintEvent(self, event) -> None:  # noqa: N802
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        if self._lines is None:
            self._drawn = np.zeros((0, 4))
            self._paint_hint(painter)
            painter.end()
            return
        clip = QRectF(event.rect())
        vector = painter.paintEngine() is not None and painter.paintEngine().type() == QPaintEngine.Type.SVG
        index = self._visible()
        if self._hover is None and not vector:
            painter.drawPixmap(0, 0, self._all_lines_pixmap())
        else:
            self._paint_lines(painter, index)
        self._drawn = self._lines.table(index)
        self._paint_labels(painter, clip)
        painter.end()

    def _all_lines_pixmap(self) -> QPixmap:
        dpr = self.devicePixelRatioF()
        if self._cache is None or self._cache.size() != self.size() * dpr:
            pixmap = QPixmap(self.size() * dpr)
            pixmap.setDevicePixelRatio(dpr)
            pixmap.fill(Qt.GlobalColor.transparent)
            p = QPainter(pixmap)
            p.setRenderHint(QPainter.RenderHint.Antialiasing)
            self._paint_lines(p, self._overview_lines())
            p.end()
            self._cache = pixmap
        return self._cache

    def _paint_lines(self, painter: QPainter, index: np.ndarray) -> None:
        lines = self._lines
        if not len(index):
            return
        x1, x2 = self._anchor_x(0), self._anchor_x(1)
        y1, y2 = self._row_y(lines.q_row[index]), self._row_y(lines.k_row[index])
        heads = lines.head[index]
        buckets = np.clip(np.rint(lines.weight[index] * BUCKETS), 0, BUCKETS).astype(np.intp)
        group = buckets * (int(heads.max()) + 1) + heads  # ascending: light pens first, strong on top
        order = np.argsort(group, kind="stable")
        grouped = group[order]
        starts = np.flatnonzero(np.r_[True, grouped[1:] != grouped[:-1]])
        for s, e in zip(starts.tolist(), np.r_[starts[1:], len(order)].tolist()):
            sel = order[s:e]
            painter.setPen(_pen(int(heads[sel[0]]), int(buckets[sel[0]])))
            painter.drawLines([QLineF(x1, a, x2, b) for a, b in zip(y1[sel].tolist(), y2[sel].tolist())])

    def _paint_labels(self, painter: QPainter, clip: QRectF) -> None:
        side, lines = self._side, self._lines
        first = max(0, int((clip.top() - HEADER) // self.row_h))
        last = int((clip.bottom() - HEADER) // self.row_h) + 1
        painter.setFont(self._bold)
        painter.setPen(QColor(theme.current().colours.token_id_ink))
        whole = QRectF(MARGIN, 0, self.width() - 2 * MARGIN, HEADER - 4)  # both whole (minimumSizeHint)
        painter.drawText(whole, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignBottom, "Query (from)")
        painter.drawText(whole, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignBottom, "Key (to)")
        if (1 in side.query_segments or 1 in side.key_segments) and self.width() >= 320:
            self._paint_segment_legend(painter)
        weights = self._hover_weights()
        for which in (0, 1):
            shown = lines.queries if which == 0 else lines.keys
            special = side.query_special if which == 0 else side.key_special
            segments = side.query_segments if which == 0 else side.key_segments
            align = (Qt.AlignmentFlag.AlignRight if which == 0 else Qt.AlignmentFlag.AlignLeft)
            for row in range(first, min(last, len(shown))):
                i = int(shown[row])
                rect = self._label_rect(which, row)
                bar_x = MARGIN if which == 0 else self.width() - MARGIN - BAR
                painter.fillRect(QRectF(bar_x, rect.top() + 2, BAR, rect.height() - 4),
                                 _segment_color(segments[i], special[i]))
                self._paint_label(painter, which, row, rect, i, special[i], align, weights)

    def _paint_segment_legend(self, painter: QPainter) -> None:
        """Sentence pairs: what the bars beside the tokens mean (A = text, B = pair)."""
        x = self.width() / 2 - 50
        painter.setFont(self._font)
        for label, segment in (("A text", 0), ("B pair", 1)):
            painter.fillRect(QRectF(x, HEADER - 17, BAR, 12), _segment_color(segment, False))
            painter.setPen(QColor(theme.current().colours.token_id_ink))
            painter.drawText(QRectF(x + BAR + 4, 0, 46, HEADER - 4),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignBottom, label)
            x += 54

    def _paint_label(self, painter, which, row, rect, i, special, align, weights) -> None:
        hovered = self._hover == (which, row)
        strength = weights.get((which, row), 0.0)
        if hovered or strength > 0:
            fill = QColor(theme.current().colours.hover)
            fill.setAlphaF(0.85 if hovered else 0.08 + 0.4 * strength)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(fill)
            painter.drawRoundedRect(rect.adjusted(0, 1, 0, -1), 4, 4)
        painter.setFont(self._fonts[(special, hovered)])
        c = theme.current().colours
        painter.setPen(QColor(c.ink_on_dark if hovered else (c.special_token.ink if special else c.ink)))
        painter.drawText(rect.adjusted(4, 0, -4, 0), align | Qt.AlignmentFlag.AlignVCenter, self._labels[which][row])

    def _hover_weights(self) -> dict[tuple[int, int], float]:
        """Strongest weight to each token on the other side of the hovered one (for a tint)."""
        if self._hover is None:
            return {}
        index = self._visible()
        other = self._lines.k_row[index] if self._hover[0] == 0 else self._lines.q_row[index]
        side = 1 - self._hover[0]
        out: dict[tuple[int, int], float] = {}
        for r, w in zip(other.tolist(), self._lines.weight[index].tolist()):
            out[(side, r)] = max(out.get((side, r), 0.0), w)
        return out

    def _paint_hint(self, painter: QPainter) -> None:
        painter.setPen(QColor(theme.current().colours.hint_ink))
        font = QFont(self.font())
        font.setItalic(True)
        painter.setFont(font)
        painter.drawText(self.rect().adjusted(20, 20, -20, -20),
                         Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, self._hint)

    # ---------------------------------------------------------- interaction
    def _hit(self, pos: QPointF) -> tuple[int, int] | None:
        if self._lines is None:
            return None
        row = int((pos.y() - HEADER) // self.row_h)
        for which, shown in ((0, self._lines.queries), (1, self._lines.keys)):
            if 0 <= row < len(shown) and self._label_rect(which, row).adjusted(-BAR - 3, 0, BAR + 3, 0).contains(pos):
                return which, row
        return None

    def set_hover(self, hover: tuple[int, int] | None) -> None:
        if hover != self._hover:
            self._hover = hover
            self.update()
            self._emit_count()

    def mouseMoveEvent(self, event) -> None:  # noqa: N802
        self.set_hover(self._hit(event.position()))
        super().mouseMoveEvent(event)

    def leaveEvent(self, event) -> None:  # noqa: N802
        self.set_hover(None)
        super().leaveEvent(event)
