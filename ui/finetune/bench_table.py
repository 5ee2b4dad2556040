"""The comparison bench's table: one row per finished run, from its ``summary.json``.

Method, trainable share, best validation metric, wall time, peak memory and
the size of the saved adapter: the table a teacher shows. Numbers sort as
numbers.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem

HEADERS = ("Method", "Trainable %", "Best {metric}", "Time (s)", "Peak MB", "Adapter MB")
TOOLTIPS = ("The fine-tuning method", "Trainable parameters as a share of all parameters",
            "The best validation value of the task's main metric over the evaluations",
            "Wall-clock time of the training", "Peak memory growth while training (CPU: resident set; GPU: "
            "allocated)", "Size of the saved adapter folder (the whole model for full fine-tuning)")


def bench_cells(row: dict[str, Any]) -> list[Any]:
    """A bench row (``FineTuneState.bench_rows``) as the table's cells (numbers stay numbers)."""
    best = row.get("best_value")
    size = row.get("adapter_bytes")
    return [row.get("method", ""),
            None if row.get("trainable_percent") is None else round(float(row["trainable_percent"]), 4),
            None if best is None else round(float(best), 4),
            None if row.get("wall_s") is None else round(float(row["wall_s"]), 1),
            None if row.get("peak_memory_mb") is None else round(float(row["peak_memory_mb"]), 1),
            None if size is None else round(float(size) / 1e6, 3)]


class BenchTable(QTableWidget):
    def __init__(self, parent=None) -> None:
        super().__init__(0, len(HEADERS), parent)
        self._set_headers("validation")
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.verticalHeader().setVisible(False)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self._height_limit = 1 << 16

    def set_height_limit(self, pixels: int) -> None:
        """The most the table may take (a theme size); it takes less when its rows need less, so the curves
        below get the room."""
        self._height_limit = pixels
        self._fit_height()

    def _fit_height(self) -> None:
        row = self.verticalHeader().defaultSectionSize()
        needed = self.horizontalHeader().sizeHint().height() + row * max(2, self.rowCount()) + 2 * self.frameWidth()
        height = min(self._height_limit, needed + 2)
        self.setMaximumHeight(height)
        self.setMinimumHeight(height)  # every row shows; the curves below take the rest

    def _set_headers(self, metric: str) -> None:
        self.setHorizontalHeaderLabels([h.format(metric=metric) for h in HEADERS])
        for column, tip in enumerate(TOOLTIPS):
            self.horizontalHeaderItem(column).setToolTip(tip)

    def show_rows(self, rows: list[dict[str, Any]]) -> None:
        self._set_headers(next((r["best_metric"] for r in rows if r.get("best_metric")), "validation"))
        self.setSortingEnabled(False)
        self.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, value in enumerate(bench_cells(row)):
                item = QTableWidgetItem()
                if isinstance(value, (int, float)):
                    item.setData(Qt.ItemDataRole.DisplayRole, value)
                else:
                    item.setText("—" if value is None else str(value))
                self.setItem(r, c, item)
        self.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)  # keep this order until a click
        self.setSortingEnabled(True)
        self._fit_height()

    def cells(self) -> list[list[str]]:
        return [[self.item(r, c).text() for c in range(self.columnCount())] for r in range(self.rowCount())]
