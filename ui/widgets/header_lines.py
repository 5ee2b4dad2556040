"""Column titles that break onto two lines instead of being cut: the Fine-tune bench's "Best validation accuracy"
read "est validatio" and the Runs table's "Objective / method" "jective / meth" in narrow columns (issue 49,
cosmetic). ``wrap_header_labels(table)`` keeps each title whole when its column is wide enough and otherwise
breaks it at the space nearest its middle, again whenever a column is resized; the header grows a line."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTableWidget

FULL_TITLE = Qt.ItemDataRole.UserRole + 41  # the title without the break


def two_lines(title: str) -> str:
    """``title`` broken at the space nearest its middle (unchanged when it has no space)."""
    spaces = [i for i, ch in enumerate(title) if ch == " "]
    if not spaces:
        return title
    middle = len(title) / 2
    at = min(spaces, key=lambda i: abs(i - middle))
    return title[:at] + "\n" + title[at + 1:]


def fit_header_labels(table: QTableWidget) -> None:
    """Each column title on one line when it fits its column, else on two."""
    header = table.horizontalHeader()
    metrics = header.fontMetrics()
    for column in range(table.columnCount()):
        item = table.horizontalHeaderItem(column)
        if item is None:
            continue
        full = item.data(FULL_TITLE)
        if not full or item.text() not in (full, two_lines(full)):  # a new title was set since
            full = item.text().replace("\n", " ")
        if item.data(FULL_TITLE) != full:
            item.setData(FULL_TITLE, full)
        room = header.sectionSize(column) - 14  # the section's margins and a sort arrow
        text = full if metrics.horizontalAdvance(full) <= room else two_lines(full)
        if item.text() != text:
            item.setText(text)


def wrap_header_labels(table: QTableWidget) -> None:
    """Fit the titles now and whenever a column's width changes (call ``fit_header_labels`` after new labels)."""
    table.horizontalHeader().sectionResized.connect(lambda *_: fit_header_labels(table))
    fit_header_labels(table)
