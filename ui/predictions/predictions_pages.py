"""The three result pages of the Predictions tab (widgets only, no model calls).

- ``FillMaskPage``: one candidate table per mask in the text;
- ``NextTokenPage``: the next-token candidates, "Accept" (or a double-click)
  and "Generate 20 tokens";
- ``InfillPage``: what a BART-style model writes for a text with mask spans.
"""

from __future__ import annotations

import html
from typing import Any, Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QGroupBox, QLabel, QScrollArea, QTableView, QWidget

from lm_workbench.ui import theme
from lm_workbench.ui.widgets.boxes import column, flush_column, row
from lm_workbench.ui.widgets.controls import button, label
from lm_workbench.ui.widgets.token_layout import display_label
from lm_workbench.ui.predictions.prob_table import CandidateModel, candidate_table

CONTEXT = 3  # tokens shown on each side of a mask


def _caption(text: str) -> QLabel:
    return label(text, name="summary", wrap=True)


class FillMaskPage(QScrollArea):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self._inner = QWidget()
        self._row = row(owner=self._inner, spacing="wide_spacing")
        self.setWidget(self._inner)
        self.tables: list[QTableView] = []

    def set_predictions(self, tokens: Sequence[str], predictions: Sequence[Any]) -> None:
        while self._row.count():
            item = self._row.takeAt(0)
            if item.widget() is not None:
                item.widget().deleteLater()
        self.tables = []
        for n, pred in enumerate(predictions, 1):
            p = pred.position
            before = " ".join(display_label(t) for t in tokens[max(0, p - CONTEXT):p])
            after = " ".join(display_label(t) for t in tokens[p + 1:p + 1 + CONTEXT])
            box = QGroupBox(f"Mask {n} of {len(predictions)} · token {p}")
            theme.bind(box, lambda w, m: w.setMinimumWidth(m.prediction_box_min_w))
            theme.bind(box, lambda w, m: w.setMaximumWidth(m.prediction_box_max_w))
            caption = _caption(f"… {html.escape(before)} <b>[MASK]</b> {html.escape(after)} …")
            caption.setTextFormat(Qt.TextFormat.RichText)
            table = candidate_table(CandidateModel(pred.candidates))
            column(box, caption, (table, 1), margins=None, spacing=None)
            self.tables.append(table)
            self._row.addWidget(box)
        self._row.addStretch(1)

    def table_ids(self) -> list[list[int]]:
        """The candidate ids shown for each mask, in rank order."""
        return [[c.id for c in t.model().candidates()] for t in self.tables]


class NextTokenPage(QWidget):
    accept_requested = Signal(int)  # row of the candidate to append
    generate_requested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.model = CandidateModel()
        self.table = candidate_table(self.model)
        self.table.doubleClicked.connect(lambda index: self.accept_requested.emit(index.row()))
        self.prompt = _caption("")
        self.prompt.setTextFormat(Qt.TextFormat.RichText)
        self.accept_button = button("Accept", clicked=self._accept,
                                    tip="Append the selected token (or the top one) to the text and predict again")
        self.generate_button = button("Generate 20 tokens", clicked=self.generate_requested,
                                      tip="Greedy decoding: append the most probable token 20 times")
        flush_column(self, self.prompt, (self.table, 1), row(self.accept_button, self.generate_button, 1))

    def set_candidates(self, ids: Sequence[int], candidates: Sequence[Any], last_tokens: Sequence[str]) -> None:
        self.model.set_candidates(candidates)
        tail = " ".join(html.escape(display_label(t)) for t in last_tokens)
        self.prompt.setText(f"The prompt is <b>{len(ids)}</b> tokens (… {tail}). "
                            "Double-click a candidate or press Accept to append it.")
        if candidates:
            self.table.selectRow(0)

    def _accept(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        self.accept_requested.emit(rows[0].row() if rows else 0)


class InfillPage(QWidget):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.source = _caption("")
        self.output = label(name="infillOutput", wrap=True)
        self.output.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.output.setStyleSheet(theme.infill_css())
        theme.follow(self, self._apply_tokens)
        self.tokens = _caption("")
        flush_column(self, QLabel("<b>Input</b> (the encoder reads it, masks included)"), self.source,
                     QLabel("<b>Output</b> (greedy decoding: the model writes the whole text back)"), self.output,
                     self.tokens, 1)


    def _apply_tokens(self) -> None:
        self.output.setStyleSheet(theme.infill_css())

    def set_result(self, source_tokens: Sequence[str], text: str, output_tokens: Sequence[str]) -> None:
        self.source.setText(" ".join(display_label(t) for t in source_tokens))
        self.output.setText(text if text.strip() else "(empty: the model ended at once; its output holds only "
                            "special tokens)")
        shown = " ".join(display_label(t) for t in output_tokens)
        self.tokens.setText(f"{len(output_tokens)} output tokens: {shown}")

    def output_text(self) -> str:
        return self.output.text()
