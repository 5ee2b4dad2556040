"""A sentence-embedding run's STS table, before and after: Spearman's rho of the validation pairs' cosines against
their gold scores at every layer, for the base model (with the pooling the run trained) beside the trained encoder
(with its own pooling), and the gain. The run's layer is the last; the others show where the change happened. A
layer whose rho is not defined (its vectors all alike) says "not defined"; the caption says why."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem, QWidget

from lm_workbench.ui import theme
from lm_workbench.ui.widgets.controls import label
from lm_workbench.ui.widgets.boxes import flush_column

COLUMNS = ("Layer", "Before (base)", "After (trained)", "Change")


def _defined(value: float | None) -> bool:
    return value is not None and value == value


def _cell(value: float | None) -> str:
    return f"{value:.3f}" if _defined(value) else "not defined"


class StsTable(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.caption = label("Train a sentence-embedding model: its STS table before and after shows here.",
                             name="summary", wrap=True)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        theme.bind(self.table, lambda w, m: w.verticalHeader().setDefaultSectionSize(m.table_row_h))
        flush_column(self, self.caption, (self.table, 1))

    def show_rows(self, rows: list[tuple[int, float, float]], caption: str = "") -> None:
        self.table.setRowCount(len(rows))
        for r, (layer, before, after) in enumerate(rows):
            change = after - before if _defined(before) and _defined(after) else None
            for c, text in enumerate((str(layer), _cell(before), _cell(after),
                                      "—" if change is None else f"{change:+.3f}")):
                item = QTableWidgetItem(text)
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(r, c, item)
        if caption:
            self.caption.setText(caption)

    def rows(self) -> list[list[str]]:
        """The table as shown, for tests and export."""
        return [[self.table.item(r, c).text() for c in range(self.table.columnCount())]
                for r in range(self.table.rowCount())]
