"""A table of occurrences whose sentence column shows the word highlighted in its sentence.

Used for the neighbours (contextual and static side by side) and for the
occurrences a box or lasso selection caught. Cells of the sentence column
hold a little HTML (``context_html``) painted by ``HtmlDelegate``; every other
column is plain text, so copying and sorting behave as usual.
"""

from __future__ import annotations

import html
from typing import Any, Sequence

from PySide6.QtCore import QModelIndex, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QAbstractTextDocumentLayout, QColor, QPalette, QTextDocument
from PySide6.QtWidgets import (
    QAbstractItemView, QHeaderView, QStyle, QStyledItemDelegate, QStyleOptionViewItem, QTableWidget,
    QTableWidgetItem,
)

from lm_workbench.ui import theme

LEFT_CHARS = 36  # context kept left of the word: in a narrow cell the word stays in sight
RIGHT_CHARS = 120
INDEX_ROLE = Qt.ItemDataRole.UserRole + 1


def context_html(sentence: str, start: int, end: int, left_chars: int = LEFT_CHARS,
                 right_chars: int = RIGHT_CHARS) -> str:
    """The sentence as HTML with ``sentence[start:end]`` highlighted (long sentences trimmed around it)."""
    left, word, right = sentence[:start], sentence[start:end], sentence[end:]
    if len(left) > left_chars:
        left = "…" + left[-left_chars:].lstrip()
    if len(right) > right_chars:
        right = right[:right_chars] + "…"
    c = theme.current().colours
    highlight = f"background:{c.word_highlight_bg}; font-weight:600; color:{c.ink}"
    return f"{html.escape(left)}<span style='{highlight}'>{html.escape(word)}</span>{html.escape(right)}"


def context_plain(sentence: str, start: int, end: int) -> str:
    """The sentence with the word in [brackets] (for CSV and the clipboard)."""
    return f"{sentence[:start]}[{sentence[start:end]}]{sentence[end:]}"


class HtmlDelegate(QStyledItemDelegate):
    """Paints a cell's text as rich text (one line, elided by the cell's width)."""

    def paint(self, painter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        doc = QTextDocument()
        doc.setDefaultFont(opt.font)
        doc.setDocumentMargin(2)
        doc.setHtml(opt.text)
        opt.text = ""
        style = opt.widget.style() if opt.widget else None
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        painter.save()
        rect = opt.rect
        top = rect.top() + max(0.0, (rect.height() - doc.size().height()) / 2)
        painter.translate(rect.left() + 2, top)
        clip = QRectF(0, 0, rect.width() - 4, rect.height())
        painter.setClipRect(clip)
        ctx = QAbstractTextDocumentLayout.PaintContext()
        if opt.state & QStyle.StateFlag.State_Selected:
            ctx.palette.setColor(QPalette.ColorRole.Text, opt.palette.color(QPalette.ColorRole.HighlightedText))
        ctx.clip = clip
        doc.documentLayout().draw(painter, ctx)
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:  # noqa: N802
        doc = QTextDocument()
        doc.setDefaultFont(option.font)
        doc.setHtml(index.data() or "")
        return QSize(int(doc.idealWidth()) + 8, int(doc.size().height()))


class OccurrenceList(QTableWidget):
    """Rows of occurrences; the column named ``html_column`` is rich text. Double-click activates a row."""

    occurrence_activated = Signal(int)  # the occurrence index of the row

    def __init__(self, header: Sequence[str], html_column: str = "sentence", parent=None):
        super().__init__(0, len(header), parent)
        self.header = list(header)
        self.html_col = self.header.index(html_column)
        self.setHorizontalHeaderLabels(self.header)
        self.setItemDelegateForColumn(self.html_col, HtmlDelegate(self))
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setAlternatingRowColors(True)
        self.verticalHeader().hide()
        theme.bind(self, lambda w, m: w.verticalHeader().setDefaultSectionSize(m.table_row_h))
        h = self.horizontalHeader()
        for col in range(len(self.header)):
            h.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        h.setSectionResizeMode(self.html_col, QHeaderView.ResizeMode.Stretch)
        self.cellDoubleClicked.connect(self._activated)
        self._plain: list[list[Any]] = []

    def set_rows(self, rows: Sequence[Sequence[Any]], indices: Sequence[int], plain: Sequence[Sequence[Any]],
                 tints: Sequence[str | None] | None = None) -> None:
        """Show ``rows`` (display values; the HTML column as HTML); ``plain`` is what export writes."""
        self.setUpdatesEnabled(False)
        self.setRowCount(len(rows))
        for r, (row, index) in enumerate(zip(rows, indices)):
            tint = tints[r] if tints else None
            for c, value in enumerate(row):
                item = QTableWidgetItem(value if isinstance(value, str) else f"{value}")
                item.setData(INDEX_ROLE, int(index))
                if c != self.html_col:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignVCenter |
                                          (Qt.AlignmentFlag.AlignRight if not isinstance(value, str)
                                           else Qt.AlignmentFlag.AlignLeft))
                if tint:
                    item.setBackground(QColor(tint))
                self.setItem(r, c, item)
        self.setUpdatesEnabled(True)
        self._plain = [list(p) for p in plain]

    def cell_text(self, row: int, column: str) -> str:
        item = self.item(row, self.header.index(column))
        return item.text() if item is not None else ""

    def row_index(self, row: int) -> int:
        return int(self.item(row, 0).data(INDEX_ROLE))

    def table(self) -> tuple[list[str], list[list[Any]]]:
        """(header, rows) with plain values, for CSV export."""
        return self.header, self._plain

    def _activated(self, row: int, _col: int) -> None:
        self.occurrence_activated.emit(self.row_index(row))
