"""The evaluation: the metrics table (model A, model B, BM25 side by side) and the per-query wins and losses of
A against BM25 on nDCG@10. Clicking a query asks the tab to search it."""

from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QHBoxLayout, QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from lm_workbench.ui import theme


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
        self.summary = QLabel()
        self.summary.setObjectName("summary")
        self.summary.setWordWrap(True)
        self.metrics = QTableWidget(0, 0)
        self.per_query = QTableWidget(0, 4)
        for table in (self.metrics, self.per_query):  # F5 on and off: columns for the new type size
            theme.bind(table, lambda w, _m: w.resizeColumnsToContents())
        self.per_query.setHorizontalHeaderLabels(["query", "model nDCG@10", "BM25 nDCG@10", "model vs BM25"])
        self.per_query.setToolTip("Click a query to search it")
        for table in (self.metrics, self.per_query):
            table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
            table.verticalHeader().setVisible(False)
        self.per_query.horizontalHeader().setStretchLastSection(False)
        self.per_query.cellClicked.connect(self._clicked)
        tables = QHBoxLayout()
        tables.addWidget(self.metrics, 2)
        tables.addWidget(self.per_query, 5)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.summary)
        layout.addLayout(tables, 1)
        self._queries: list[str] = []

    def show_evaluation(self, state: Any) -> None:
        header, rows = state.metrics_table()
        self.metrics.clear()
        self.metrics.setColumnCount(len(header))
        self.metrics.setRowCount(len(rows))
        self.metrics.setHorizontalHeaderLabels(header)
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                self.metrics.setItem(r, c, _item(value))
        self.metrics.resizeColumnsToContents()
        ev = state.evaluation
        comparisons = ev.comparisons if ev is not None else []
        self.per_query.setRowCount(len(comparisons))
        self._queries = [c.query for c in comparisons]
        for r, c in enumerate(comparisons):
            for col, value in enumerate((c.query, c.model, c.bm25, c.outcome)):
                self.per_query.setItem(r, col, _item(value))
        self.per_query.resizeColumnsToContents()
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
