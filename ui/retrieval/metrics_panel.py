"""The evaluation: the metrics table (model A, model B, BM25 side by side) and, below it, the per-query wins and
losses of A against BM25 on nDCG@10. Clicking a query asks the tab to search it.

Room (issue 49.6): the metrics table is as tall as its rows, the per-query table shows at least ``QUERY_ROWS``
rows, both take the full width; numbers are never cut (their columns fit their contents), only a long query
elides. The tab's page scrolls when the window is shorter."""

from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import (
    QAbstractItemView, QAbstractScrollArea, QHeaderView, QTableWidget, QTableWidgetItem, QWidget,
)

from lm_workbench.ui.widgets.controls import label
from lm_workbench.ui.widgets.boxes import flush_column

QUERY_ROWS = 8  # the per-query table's least height, in rows


def _item(value: Any) -> QTableWidgetItem:
    text = "—" if value is None else f"{value:.4f}" if isinstance(value, float) else str(value)
    item = QTableWidgetItem(text)
    item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
    if isinstance(value, float):
        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return item


class MetricsPanel(QWidget):
    def __init__(self, on_query: Callable[[str], None], parent: QWidget | None = None):
        super().__init__(parent)
        self.on_query = on_query
        self.summary = label(name="summary", wrap=True)
        self.metrics = QTableWidget(0, 0)
        self.per_query = QTableWidget(0, 4)
        self.per_query.setHorizontalHeaderLabels(["query", "model nDCG@10", "BM25 nDCG@10", "model vs BM25"])
        self.per_query.setToolTip("Click a query to search it")
        for table in (self.metrics, self.per_query):
            table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
            table.verticalHeader().setVisible(False)
            table.setSizeAdjustPolicy(QAbstractScrollArea.SizeAdjustPolicy.AdjustIgnored)
        self.per_query.horizontalHeader().setStretchLastSection(False)
        self.per_query.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.per_query.setWordWrap(False)  # one line a query (the tooltip and a click give the whole of it)
        self.per_query.cellClicked.connect(self._clicked)
        flush_column(self, self.summary, self.metrics, (self.per_query, 1))
        self._queries: list[str] = []
        self._fit()

    def changeEvent(self, event: QEvent) -> None:  # F5 on and off: rows and columns for the new type size
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._fit()

    @staticmethod
    def _height_for(table: QTableWidget, rows: int) -> int:
        """Pixels for the header and ``rows`` rows of one line each at the table's type size."""
        row_h = table.fontMetrics().lineSpacing() + 10
        table.verticalHeader().setDefaultSectionSize(row_h)
        table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        return table.horizontalHeader().sizeHint().height() + rows * row_h + 2 * table.frameWidth() + 2

    def _fit(self) -> None:
        """Columns to their contents (the query column takes what is left and elides), the metrics table's
        height to all its rows, the per-query table's least height to ``QUERY_ROWS``."""
        self.metrics.resizeColumnsToContents()
        self.metrics.setMaximumWidth(self.metrics.horizontalHeader().length() + 2 * self.metrics.frameWidth() + 4)
        self.metrics.setFixedHeight(self._height_for(self.metrics, max(1, self.metrics.rowCount())))
        header = self.per_query.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for c in range(1, self.per_query.columnCount()):
            header.setSectionResizeMode(c, QHeaderView.ResizeMode.ResizeToContents)
        self.per_query.setMinimumHeight(self._height_for(self.per_query,
                                                         max(1, min(QUERY_ROWS, self.per_query.rowCount()))))

    def show_evaluation(self, state: Any) -> None:
        header, rows = state.metrics_table()
        self.metrics.clear()
        self.metrics.setColumnCount(len(header))
        self.metrics.setRowCount(len(rows))
        self.metrics.setHorizontalHeaderLabels(header)
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                self.metrics.setItem(r, c, _item(value))
        ev = state.evaluation
        comparisons = ev.comparisons if ev is not None else []
        self.per_query.setRowCount(len(comparisons))
        self._queries = [c.query for c in comparisons]
        for r, c in enumerate(comparisons):
            for col, value in enumerate((c.query, c.model, c.bm25, c.outcome)):
                item = _item(value)
                if col == 0:
                    item.setToolTip(str(value))  # the whole query where the column elides it
                self.per_query.setItem(r, col, item)
        self._fit()
        if ev is None:
            self.summary.setText("")
            return
        counts = ev.counts()
        notes = "; ".join(ev.notes)
        self.summary.setText(
            f"{ev.queries:,} judged queries, {ev.documents:,} passages (split {ev.split}); per query on nDCG@10 the "
            f"model wins {counts['wins']}, loses {counts['losses']}, ties {counts['ties']} against BM25 "
            f"({ev.bm25_params.label() if ev.bm25_params else 'BM25'})." + (f" {notes}." if notes else ""))

    def _clicked(self, row: int, _column: int) -> None:
        if 0 <= row < len(self._queries):
            self.on_query(self._queries[row])
