"""Model B's predictions beside model A's (the model panel's "Compare with…"): the same text, the same kind.

B makes A's kind of prediction on its own tokens of the text: fill-mask (B needs an MLM head and a mask
token), the next token (B needs a causal-LM head) or infilling (B needs to be an encoder-decoder). Where B
cannot, its side says why in one line. The job that predicts for A predicts for B after it
(``lm_workbench.ui.view_kit.view_base.paired``). B's side is read-only: Accept, Generate and Explain act on A.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QStackedWidget, QWidget

from lm_workbench.ui.predictions.predictions_pages import FillMaskPage, InfillPage
from lm_workbench.ui.predictions.prob_table import CandidateModel, candidate_table
from lm_workbench.ui.widgets.boxes import flush_column

class ModelBPredictions(QWidget):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.fill_page = FillMaskPage()
        self.next_model = CandidateModel()
        self.next_table = candidate_table(self.next_model)
        self.infill_page = InfillPage()
        self.pages = QStackedWidget()
        self.blank = QWidget()
        for page in (self.blank, self.fill_page, self.next_table, self.infill_page):
            self.pages.addWidget(page)
        flush_column(self, (self.pages, 1))

    def show_result(self, result: tuple[str, Any]) -> None:
        what, value = result
        if what == "why":  # the B column's reason line says why (``ModelBSplit.show_b_reason``)
            self.pages.setCurrentWidget(self.blank)
        elif what == "fill":
            self.fill_page.set_predictions(*value)
            self.pages.setCurrentWidget(self.fill_page)
        elif what == "next":
            self.next_model.set_candidates(value)
            self.pages.setCurrentWidget(self.next_table)
        else:
            infilling, out_tokens = value
            self.infill_page.set_result(infilling.source_tokens, infilling.text, out_tokens)
            self.pages.setCurrentWidget(self.infill_page)

    def candidate_ids(self) -> list[list[int]]:
        """B's candidate ids in rank order: one list per mask (fill-mask) or one list (next token)."""
        if self.pages.currentWidget() is self.fill_page:
            return self.fill_page.table_ids()
        if self.pages.currentWidget() is self.next_table:
            return [[c.id for c in self.next_model.candidates()]]
        return []
