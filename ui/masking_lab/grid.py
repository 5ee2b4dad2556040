"""The lab's preview, painted: rows of token cells coloured by what happened at each position.

``PreviewGrid`` draws bands of rows (see ``lm_workbench.masking_lab.rows``): the rows of
one band share columns and wrap together to the widget's width; a cell's
colour says its ``PositionKind`` (the theme's ``mask_kinds``), -100 labels are grey.
Hovering a cell outlines it (and, for an input cell, the original position it
came from) and shows its token, id, kind and label as a tooltip.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, QRect, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPen
from PySide6.QtWidgets import QWidget

from lm_workbench.ui import theme
from lm_workbench.ui.widgets.chip_canvas import MARGIN, ChipCanvas, ChipLegend, legend_html, short_label as _short
from lm_workbench.masking_lab.rows import IGNORED, Row

LEGEND_KINDS = ("unchanged", "masked", "random", "kept", "deleted", "inserted", "moved", "sentinel", IGNORED)
LEGEND_NAMES = {IGNORED: "label&nbsp;−100&nbsp;(not&nbsp;scored)"}

GAP = 3
LINE_GAP = 12


class Legend(ChipLegend):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(lambda: legend_html((kind, LEGEND_NAMES.get(kind, kind)) for kind in LEGEND_KINDS), parent)


class PreviewGrid(ChipCanvas):
    """Bands of rows of cells; see the module docstring. Not one widget per cell: one paint."""

    HINT_WIDTH = 640

    def __init__(self, parent: QWidget | None = None):
        self.bands: list[list[Row]] = []
        self._cells: list[tuple[QRect, str, int]] = []  # rect, row name, index
        self._titles: list[tuple[QRect, str]] = []
        self._rules: list[int] = []
        super().__init__(parent)
        self.cell_font = QFont(self.font())

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
        self._laid_out(width, max(y + MARGIN - LINE_GAP, cell_h + 2 * MARGIN))

    # -------------------------------------------------------------- painting
    def paintEvent(self, event) -> None:  # noqa: N802
        painter, c, m = self._begin_paint()
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
