"""Column titles that break onto two lines instead of being cut: the Fine-tune bench's "Best validation accuracy"
read "est validatio" and the Runs table's "Objective / method" "jective / meth" in narrow columns (issue 49,
cosmetic). ``wrap_header_labels(table)`` keeps each title whole when its column is wide enough and otherwise
breaks it at the space nearest its middle, again whenever a column is resized; the header grows a line.

It works on a ``QTableWidget`` (its header items) and on a model-based ``QTableView`` whose model (or the model
under its proxies) keeps titles through ``HeaderTitles``: ``headerData(column, Horizontal, FULL_TITLE)`` gives the
whole title and ``setHeaderData(column, Horizontal, text)`` the text shown."""

from __future__ import annotations

from PySide6.QtCore import QAbstractItemModel, Qt
from PySide6.QtWidgets import QTableView, QTableWidget

FULL_TITLE = Qt.ItemDataRole.UserRole + 41  # the title without the break


def two_lines(title: str) -> str:
    """``title`` broken at the space nearest its middle (unchanged when it has no space)."""
    spaces = [i for i, ch in enumerate(title) if ch == " "]
    if not spaces:
        return title
    middle = len(title) / 2
    at = min(spaces, key=lambda i: abs(i - middle))
    return title[:at] + "\n" + title[at + 1:]


HEADER_MARGIN = 14  # a header section's margins and a sort arrow, in pixels


class HeaderTitles:
    """The titles a model's header shows, for models that build their titles themselves: ``shown(column, full)``
    is the text to show (``full`` until ``fit_header_labels`` set a broken one). Keep one in the model and
    answer ``headerData``'s ``FULL_TITLE`` role with the whole title and ``setHeaderData`` through ``set``."""

    def __init__(self) -> None:
        self._shown: dict[int, str] = {}

    def shown(self, column: int, full: str) -> str:
        text = self._shown.get(column, full)
        return text if text in (full, two_lines(full)) else full  # a title changed since: the new one

    def set(self, model: QAbstractItemModel, column: int, text: str) -> bool:
        if self._shown.get(column) != text:
            self._shown[column] = text
            model.headerDataChanged.emit(Qt.Orientation.Horizontal, column, column)
        return True


def _fit_model_header(view: QTableView) -> None:
    header, model = view.horizontalHeader(), view.model()
    if model is None:
        return
    metrics = header.fontMetrics()
    horizontal = Qt.Orientation.Horizontal
    for column in range(model.columnCount()):
        full = model.headerData(column, horizontal, FULL_TITLE)
        if not full:  # a model without ``HeaderTitles``: its titles stay as they are
            continue
        room = header.sectionSize(column) - HEADER_MARGIN
        text = full if metrics.horizontalAdvance(full) <= room else two_lines(full)
        if model.headerData(column, horizontal, Qt.ItemDataRole.DisplayRole) != text:
            model.setHeaderData(column, horizontal, text, Qt.ItemDataRole.DisplayRole)


def title_floors(table: QTableView, least: int = 48) -> list[int]:
    """Per column, the width in pixels its title needs on two lines (its longer line and the margins; at least
    ``least``): narrower, the title would be cut whatever ``fit_header_labels`` does."""
    header, model = table.horizontalHeader(), table.model()
    if model is None:
        return []
    metrics, horizontal = header.fontMetrics(), Qt.Orientation.Horizontal
    floors = []
    for column in range(model.columnCount()):
        full = model.headerData(column, horizontal, FULL_TITLE) or str(
            model.headerData(column, horizontal, Qt.ItemDataRole.DisplayRole) or "").replace("\n", " ")
        need = max((metrics.horizontalAdvance(line) for line in two_lines(full).split("\n")), default=0)
        floors.append(max(least, need + HEADER_MARGIN))
    return floors


def fit_header_labels(table: QTableView) -> None:
    """Each column title on one line when it fits its column, else on two."""
    if not isinstance(table, QTableWidget):
        _fit_model_header(table)
        return
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
        room = header.sectionSize(column) - HEADER_MARGIN
        text = full if metrics.horizontalAdvance(full) <= room else two_lines(full)
        if item.text() != text:
            item.setText(text)


def wrap_header_labels(table: QTableView) -> None:
    """Fit the titles now and whenever a column's width changes (call ``fit_header_labels`` after new labels)."""
    table.horizontalHeader().sectionResized.connect(lambda *_: fit_header_labels(table))
    fit_header_labels(table)
