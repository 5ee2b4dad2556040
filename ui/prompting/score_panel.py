"""The Score page: one input through the prompt, as the model sees it, and what each label scored.

Top: the filled prompt's tokens, the answer slot marked (for a decoder the
answer goes after the last token). Left: each label with its answers (their
tokens and log-probabilities), its score and its probability (softmax over
the labels). Right: the model's own top-k at the answer position, the words
it would have put there. Above them, Explain (``lm_workbench.ui.widgets.attribution_panel``):
the selected label's score (the predicted label's when none is selected)
attributed to the filled prompt's tokens, with the raw attention of a layer
(``lm_workbench.attribution.view_tasks.prompt_label_job``).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem, QWidget

from lm_workbench.ui import theme
from lm_workbench.ui.prompting.token_stream import StreamToken, TokenStream
from lm_workbench.ui.widgets.attribution_panel import AttributionPanel
from lm_workbench.ui.widgets import boxes, controls
from lm_workbench.ui.widgets.token_layout import display_label
from lm_workbench.prompting.state import PromptingState

LABEL_COLUMNS = ["label", "probability", "calibrated", "score", "answers (tokens: log p)"]
TOP_COLUMNS = ["#", "token", "id", "p"]


def _table(columns: list[str]) -> QTableWidget:
    table = QTableWidget(0, len(columns))
    table.setHorizontalHeaderLabels(columns)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.verticalHeader().setVisible(False)
    table.setAlternatingRowColors(True)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    table.horizontalHeader().setStretchLastSection(True)
    theme.bind(table, lambda t, m: t.verticalHeader().setDefaultSectionSize(m.table_row_h))
    return table


def _item(text: str, tooltip: str = "") -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    if tooltip:
        item.setToolTip(tooltip)
    return item


class ScorePanel(QWidget):
    def __init__(self, state: PromptingState, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = state
        self.tokens = TokenStream("Press Score (Ctrl+Enter): the prompt appears here as the model reads it.")
        self.summary = controls.label("", name="summary", wrap=True)
        self.labels_table = _table(LABEL_COLUMNS)
        self.top_table = _table(TOP_COLUMNS)
        labels_title = controls.label("Labels", name="sectionTitle")
        # the title wraps: it does not hold the Labels table narrower than its columns
        top_title = controls.label("What the model wanted: its top-k at the answer", name="sectionTitle", wrap=True)
        left = boxes.column(None, labels_title, (self.labels_table, 1), margins=None, spacing=None)
        right = boxes.column(None, top_title, (self.top_table, 1), margins=None, spacing=None)
        self.explain = AttributionPanel("the selected label's score (or the predicted label's)", foil="label")
        tables = boxes.row((left, 3), (right, 2))
        boxes.column(self, self.tokens, self.summary, self.explain, (tables, 1), margins=None, spacing=None)
        state.events.score_changed.connect(self._show)

    def selected_label(self) -> str | None:
        """The label of the selected row of the Labels table, else the predicted one (None: nothing scored)."""
        scored = self.state.scored
        if scored is None:
            return None
        rows = self.labels_table.selectionModel().selectedRows()
        return scored.labels[rows[0].row()] if rows and rows[0].row() < len(scored.labels) else scored.predicted

    def _show(self) -> None:
        scored, calibrated = self.state.scored, self.state.scored_calibrated
        self.explain.clear()
        if scored is None:
            self.tokens.clear()
            self.summary.setText("")
            self.labels_table.setRowCount(0)
            self.top_table.setRowCount(0)
            return
        self.tokens.set_tokens(self._prompt_tokens(scored, self.state.mode))
        self.labels_table.setRowCount(len(scored.labels))
        calibrated = calibrated or [None] * len(scored.labels)
        rows = zip(scored.labels, scored.label_scores, scored.label_probs, calibrated)
        for row, (label, score, prob, cal) in enumerate(rows):
            answers = [a for a in scored.answers if a.label == label]
            shown = "; ".join(f"{a.answer} ({' '.join(display_label(t) for t in a.tokens)}: "
                              f"{' '.join(f'{lp:.2f}' for lp in a.token_log_probs)})" for a in answers)
            cells = [_item(label), _item(f"{prob:.4f}", f"p = {prob:.6f}"),
                     _item("" if cal is None else f"{cal:.4f}", "after contextual calibration (Calibrate on the "
                                                                "Evaluate page)"),
                     _item(f"{score:.4f}", "log of the summed answer probabilities"), _item(shown, shown)]
            for col, item in enumerate(cells):
                self.labels_table.setItem(row, col, item)
        self.top_table.setRowCount(len(scored.top_k))
        for row, c in enumerate(scored.top_k):
            cells = [_item(str(row + 1)), _item(display_label(c.token), repr(c.token)), _item(str(c.id)),
                     _item(f"{c.prob:.4f}")]
            for col, item in enumerate(cells):
                self.top_table.setItem(row, col, item)
        dropped = (f" Dropped demonstrations (did not fit the window): {scored.dropped_demonstrations}."
                   if scored.dropped_demonstrations else "")
        self.summary.setText(f"Predicted: {scored.predicted} ({len(scored.tokens)} tokens in the prompt).{dropped}")

    @staticmethod
    def _prompt_tokens(scored: Any, mode: str) -> list[StreamToken]:
        """The prompt's chips: a cloze prompt's mask marked; a prefix prompt's answer after its last token."""
        answer = set(scored.answer_positions) if mode == "cloze" else set()
        chips = [StreamToken(t, i, None, "answer" if k in answer else "prompt")
                 for k, (t, i) in enumerate(zip(scored.tokens, scored.token_ids))]
        if mode != "cloze":
            chips.append(StreamToken("[z]", None, None, "answer"))
        return chips
