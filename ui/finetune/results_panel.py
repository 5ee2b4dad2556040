"""A finished run's validation results: the confusion matrix (classification) and the predictions table.

The table lists every validation example (text, gold, predicted,
confidence; a preference run: the prompt, the chosen answer, the answer the tuned model gives the higher
probability, and σ of that log-probability difference), wrong predictions first and each group by falling confidence,
so the most confident mistakes are on top; wrong rows are tinted. Above it, a preference run says how often the
model preferred the chosen answer on the held-out pairs before and after tuning, and per category. Clicking a
header sorts by that column. For a sequence classifier, Explain under the table
(``lm_workbench.ui.widgets.attribution_panel``) attributes the selected row's predicted label to
its input tokens (``lm_workbench.attribution.view_tasks.run_label_job``: the run's model reloaded
from its output folder) with the raw attention of a layer.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView, QHeaderView, QSplitter, QTableWidget, QTableWidgetItem, QWidget,
)

from lm_workbench.attribution.targets import LabelTarget
from lm_workbench.ui import theme
from lm_workbench.ui.widgets.attribution_panel import AttributionPanel
from lm_workbench.ui.widgets.controls import label
from lm_workbench.ui.widgets.boxes import flush_column
from lm_workbench.ui.widgets.heatmap import HeatmapView
from lm_workbench.finetune.state import RunResult, errors_first

COLUMNS = ("text", "gold", "predicted", "confidence")
# The columns' headers per task (the same keys of each prediction): a preference pair is no classification.
HEADERS = {"preference": ("Prompt", "Chosen answer", "Tuned model prefers", "σ(log-prob. difference)")}
DEFAULT_HEADERS = tuple(c.title() for c in COLUMNS)
ROW_ROLE = Qt.ItemDataRole.UserRole + 1  # the row's index in the predictions shown (the table sorts)


def _display(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return " ".join(str(v) for v in value)
    return "" if value is None else str(value)


class ResultsPanel(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.confusion = HeatmapView(empty_hint="The confusion matrix shows here after training.")
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(list(DEFAULT_HEADERS))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        header = self.table.horizontalHeader()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(False)
        theme.bind(self.table, lambda w, m: w.verticalHeader().setDefaultSectionSize(m.table_row_h))
        self.result: RunResult | None = None
        self._shown: list[dict[str, Any]] = []  # the predictions in the order first shown
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.confusion)
        splitter.addWidget(self.table)
        splitter.setStretchFactor(1, 3)
        splitter.setSizes([1, 3])  # shares, scaled to the width
        splitter.setChildrenCollapsible(False)
        # a readable matrix at any width: it got ~70 px in the 1280 split layout (issue 49, cosmetic)
        theme.bind(self.confusion, lambda w, _m: w.setMinimumWidth(w.fontMetrics().height() * 13))
        self.data_note = label(name="summary", wrap=True)  # what reading the data files kept and skipped
        # a preference run: held-out accuracy before/after, per category
        self.preference_note = label(name="summary", wrap=True, tip=(
            "Preferred: the model itself gives the chosen answer a higher log-probability than the rejected one "
            "(before: the starting model, the reference; after: the tuned model). DPO's reward accuracy: the share "
            "of pairs whose margin β·[(log π − log π_ref)(chosen) − (log π − log π_ref)(rejected)] is positive, "
            "i.e. that tuning moved towards the chosen answer; it is 0 at step 0, where π = π_ref. The loss starts "
            "at log 2 = 0.693."))
        self.explain = AttributionPanel("the selected row's predicted label", foil="label")
        flush_column(self, self.data_note, self.preference_note, splitter, self.explain)
        theme.follow(self, self._restyle)
        self.show_result(None)

    def show_result(self, result: RunResult | None) -> None:
        self.result = result
        confusion = result.confusion if result is not None else None
        if confusion and confusion.get("matrix"):
            labels = [str(x) for x in confusion.get("labels", [])]
            self.confusion.set_matrix(np.asarray(confusion["matrix"], dtype=float), labels, labels,
                                      title="Gold (rows) × predicted")
            self.confusion.show()
        else:
            self.confusion.set_matrix(None)
            self.confusion.setVisible(False)
        task = result.summary.get("task") if result is not None else None
        self.table.setHorizontalHeaderLabels(list(HEADERS.get(task, DEFAULT_HEADERS)))
        self._fill(errors_first(result.predictions) if result is not None else [])
        self.explain.clear()
        self.explain.setVisible(self.explainable())
        lines = (result.data_lines() + result.note_lines()) if result is not None else []
        self.data_note.setText("; ".join(lines))
        self.data_note.setVisible(bool(lines))
        preference = result.preference_lines() if result is not None else []
        self.preference_note.setText("\n".join(preference))
        self.preference_note.setVisible(bool(preference))

    def explainable(self) -> bool:
        """Whether the shown run is a sequence classifier (whose labels Explain attributes)."""
        return self.result is not None and self.result.summary.get("task") == "seq-cls"

    def explain_request(self) -> LabelTarget | None:
        """What Explain attributes: the selected row's text, pair and predicted label (None: no row selected)."""
        rows = self.table.selectionModel().selectedRows()
        if not rows or not self.explainable():
            return None
        row = self._shown[int(self.table.item(rows[0].row(), 0).data(ROW_ROLE))]
        text = row.get("text")
        pair = row.get("text_pair")
        return LabelTarget(text=str(text), text2=str(pair) if pair else None,
                           label=str(row["predicted"]) if row.get("predicted") is not None else None)

    def rows(self) -> list[list[str]]:
        """The table as shown (its current order), for tests and export."""
        return [[self.table.item(r, c).text() for c in range(self.table.columnCount())]
                for r in range(self.table.rowCount())]

    def _fill(self, predictions: list[dict[str, Any]]) -> None:
        self.table.setSortingEnabled(False)
        self._shown = list(predictions)
        self.table.setRowCount(len(predictions))
        for r, row in enumerate(predictions):
            for c, name in enumerate(COLUMNS):
                item = QTableWidgetItem()
                value = row.get(name)
                if name == "confidence" and value is not None:
                    item.setData(Qt.ItemDataRole.DisplayRole, round(float(value), 4))
                else:
                    item.setText(_display(value))
                correct = row.get("correct")  # None (a sentence pair's cosine): neither right nor wrong
                item.setData(Qt.ItemDataRole.UserRole, True if correct is None else bool(correct))
                item.setData(ROW_ROLE, r)
                self.table.setItem(r, c, item)
        self._restyle()
        self.table.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)  # keep this order until a click
        self.table.setSortingEnabled(True)

    def _restyle(self) -> None:
        wrong = QBrush(QColor(theme.current().colours.prediction_error_bg))
        for r in range(self.table.rowCount()):
            for c in range(self.table.columnCount()):
                item = self.table.item(r, c)
                if item is not None:
                    item.setBackground(QBrush() if item.data(Qt.ItemDataRole.UserRole) else wrong)
