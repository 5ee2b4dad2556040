"""The lab's preview, painted: rows of token cells coloured by what happened at each position.

``PreviewGrid`` draws bands of rows (see ``lm_workbench.masking_lab.rows``): the rows of
one band share columns and wrap together to the widget's width; a cell's
colour says its ``PositionKind`` (the theme's ``mask_kinds``), -100 labels are grey.
Hovering a cell outlines it (and, for an input cell, the original position it
came from) and shows its token, id, kind and label as a tooltip.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, QRect, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

from lm_workbench.ui import theme
from lm_workbench.ui.widgets.hover import HoverTips
from lm_workbench.ui.widgets.token_layout import display_label
from lm_workbench.masking_lab.rows import IGNORED, Row

LEGEND_KINDS = ("unchanged", "masked", "random", "kept", "deleted", "inserted", "moved", "sentinel", IGNORED)
LEGEND_NAMES = {IGNORED: "label&nbsp;−100&nbsp;(not&nbsp;scored)"}

GAP = 3
LINE_GAP = 12
MARGIN = 6
MAX_CELL_TEXT = 18


def _short(text: str) -> str:
    text = display_label(text) if text else ""
    return text if len(text) <= MAX_CELL_TEXT else text[: MAX_CELL_TEXT - 1] + "…"


def legend_html() -> str:
    parts = []
    for kind in LEGEND_KINDS:
        fill, border, ink = theme.current().colours.mask_kinds.get(kind)
        parts.append(f'<span style="background:{fill}; color:{ink};">&nbsp;{LEGEND_NAMES.get(kind, kind)}&nbsp;</span>')
    return "&nbsp; ".join(parts)


class Legend(QLabel):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setWordWrap(True)
        self.setText(legend_html())
        theme.follow(self, self._apply_tokens)

    def _apply_tokens(self) -> None:
        self.setText(legend_html())


class PreviewGrid(HoverTips, QWidget):
    """Bands of rows of cells; see the module docstring. Not one widget per cell: one paint."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Minimum)
        self.bands: list[list[Row]] = []
        self._cells: list[tuple[QRect, str, int]] = []  # rect, row name, index
        self._titles: list[tuple[QRect, str]] = []
        self._rules: list[int] = []
        self._height = 2 * MARGIN
        self._laid_out_for = -1
        font = QFont(self.font())
        self.cell_font = font
        self.setMinimumHeight(theme.current().metrics.mask_cell_h + 2 * MARGIN)
        theme.follow(self, self._apply_tokens)

    def _apply_tokens(self) -> None:
        self.cell_font = QFont(self.font())
        self._relayout(self.width())
        self.update()

    # ------------------------------------------------------------------ data
    def set_bands(self, bands: list[list[Row]]) -> None:
        self.bands = bands
        self.forget_hover()
        self._relayout(self.width())
        self.update()

    def row(self, name: str) -> Row | None:
        for band in self.bands:
            for row in band:
                if row.name == name:
                    return row
        return None

    def row_names(self) -> list[str]:
        return [row.name for band in self.bands for row in band]

    # ---------------------------------------------------------------- layout
    def _relayout(self, width: int) -> None:
        fm = QFontMetrics(self.cell_font)
        cell_h, title_w = theme.current().metrics.mask_cell_h, theme.current().metrics.mask_title_w
        avail = max(120, width - title_w - 2 * MARGIN)
        self._cells, self._titles, self._rules = [], [], []
        y = MARGIN
        for b, band in enumerate(self.bands):
            if b:
                self._rules.append(y - LINE_GAP // 2)
            n = max((len(r.cells) for r in band), default=0)
            widths = [max([fm.horizontalAdvance(_short(r.cells[i].text)) + 12 for r in band if i < len(r.cells)] + [22])
                      for i in range(n)]
            start = 0
            while start < n or (start == 0 and n == 0):
                x_used, end = 0, start
                while end < n and (end == start or x_used + widths[end] + GAP <= avail):
                    x_used += widths[end] + GAP
                    end += 1
                for r, row in enumerate(band):
                    top = y + r * (cell_h + GAP)
                    self._titles.append((QRect(MARGIN, top, title_w - 6, cell_h), row.title))
                    x = MARGIN + title_w
                    for i in range(start, min(end, len(row.cells))):
                        self._cells.append((QRect(x, top, widths[i], cell_h), row.name, i))
                        x += widths[i] + GAP
                y += len(band) * (cell_h + GAP) + LINE_GAP
                start = end
                if n == 0:
                    break
        self._height = max(y + MARGIN - LINE_GAP, cell_h + 2 * MARGIN)
        self._laid_out_for = width
        if self.minimumHeight() != self._height:
            self.setMinimumHeight(self._height)
            self.updateGeometry()

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(640, self._height)

    def resizeEvent(self, event) -> None:  # noqa: N802
        if event.size().width() != self._laid_out_for:
            self._relayout(event.size().width())
        super().resizeEvent(event)

    # -------------------------------------------------------------- painting
    def paintEvent(self, event) -> None:  # noqa: N802
        if self._laid_out_for != self.width():
            self._relayout(self.width())
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        c, m = theme.current().colours, theme.current().metrics
        painter.fillRect(self.rect(), QColor(c.base_bg))
        painter.setPen(QColor(c.hint_ink))
        for rect, title in self._titles:
            painter.drawText(rect, int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), title)
        painter.setPen(QPen(QColor(c.rule), m.chip_border_width))
        for y in self._rules:
            painter.drawLine(MARGIN, y, self.width() - MARGIN, y)
        linked, hover = self._linked(), self.hovered_part()
        painter.setFont(self.cell_font)
        for rect, name, i in self._cells:
            cell = self.row(name).cells[i]
            fill, border, ink = c.mask_kinds.get(cell.kind)
            hot = hover == (name, i) or (name == "original" and i in linked)
            painter.setPen(QPen(QColor(c.hover if hot else border), m.hover_width if hot else m.chip_border_width))
            painter.setBrush(QColor(fill))
            painter.drawRoundedRect(rect.adjusted(0, 0, -1, -1), 3, 3)
            painter.setPen(QColor(ink))
            font = QFont(self.cell_font)
            font.setStrikeOut(cell.kind == "deleted")
            painter.setFont(font)
            painter.drawText(rect, int(Qt.AlignmentFlag.AlignCenter), _short(cell.text))
        painter.end()

    def _linked(self) -> set[int]:
        hover = self.hovered_part()
        if hover is None or hover[0] != "input":
            return set()
        row = self.row("input")
        link = row.cells[hover[1]].link if row is not None else -1
        return {link} if link >= 0 else set()

    # ----------------------------------------------------------------- hover
    def cell_at(self, pos: QPoint) -> tuple[str, int] | None:
        for rect, name, i in self._cells:
            if rect.contains(pos):
                return name, i
        return None

    def cell_rect(self, name: str, index: int) -> QRect | None:
        for rect, n, i in self._cells:
            if n == name and i == index:
                return rect
        return None

    def tooltip_at(self, pos: QPoint) -> str:
        hit = self.cell_at(pos)
        return self.part_tip(hit) if hit else ""

    def part_at(self, pos: QPointF) -> tuple[str, int] | None:
        return self.cell_at(pos.toPoint())

    def part_tip(self, part: tuple[str, int]) -> str:
        return self.row(part[0]).cells[part[1]].tip
