"""Attention step by step: one head, one query token, from q to the head's output, one step per click.

The panel shows what ``lm_workbench.engine.attention_walkthrough.attention_walkthrough`` computed
(the Attention view runs it off the Qt thread and hands the result to
``set_walkthrough``): a line saying where we are, the step's drawing (a
``StepCanvas``) and a caption with the step's numbers for the query token.
Next and Previous (the buttons, or PageDown/PageUp while the panel is open)
walk through ``STEP_TITLES``. The layer, head and query pickers ask the view
to compute again (``request``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

from lm_workbench.ui.widgets.boxes import flush_column, row
from lm_workbench.ui.widgets.controls import button, combo_box, label, spin_box, tool_button
from lm_workbench.ui.widgets.scroll_area import scroll_area
from lm_workbench.ui.widgets.token_layout import display_label
from lm_workbench.ui.attention.walkthrough_canvas import StepCanvas

if TYPE_CHECKING:
    from lm_workbench.attention.for_views import AttentionWalkthrough

STEP_TITLES = (
    "the query vector q", "every key vector k", "q ⊙ k, elementwise", "q · k, the sum of each row",
    "divided by √d_k", "softmax: the attention weights", "the value vectors, weighted", "the head's output",
)


def _top(values: np.ndarray, visible: np.ndarray) -> int:
    return int(np.argmax(np.where(visible, values, -np.inf)))


class WalkthroughPanel(QWidget):
    request = Signal(int, int, int)  # layer, head, query: compute these steps
    closed = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._steps: AttentionWalkthrough | None = None
        self._step = 0
        self._tokens: list[str] = []
        self.layer_spin = spin_box(0, 99, 0, prefix="layer ")
        self.head_spin = spin_box(0, 99, 0, prefix="head ")
        self.query_combo = combo_box(tip="The query token: the one whose attention is computed")
        self.previous_button = button("◀ Previous", tip="The previous step (PageUp)", clicked=self.previous)
        self.next_button = button("Next ▶", tip="The next step (PageDown)", clicked=self.next)
        self.close_button = tool_button("Close", clicked=self.closed)
        self.where = label(name="sectionTitle", wrap=True)
        self.where.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.caption = label(name="summary", wrap=True)
        self.canvas = StepCanvas()
        self.canvas_scroll = scroll_area(self.canvas, frame=False)  # a long sentence in a big font: the rows scroll

        steps = row(QLabel("Step by step:"), self.layer_spin, self.head_spin, QLabel("query"), self.query_combo, 1,
                    self.previous_button, self.next_button, self.close_button, spacing="group_spacing")
        flush_column(self, steps, self.where, (self.canvas_scroll, 1), self.caption, spacing="row_spacing")

        for spin in (self.layer_spin, self.head_spin):
            spin.valueChanged.connect(lambda _v: self._ask())
        self.query_combo.currentIndexChanged.connect(lambda _i: self._ask())
        self._show_step()

    # ------------------------------------------------------------ choosing
    def set_shape(self, layers: int, heads: int, tokens: list[str]) -> None:
        """The ranges to pick from (signals held back; the view computes once it has set the choice)."""
        for spin, count in ((self.layer_spin, layers), (self.head_spin, heads)):
            spin.blockSignals(True)
            spin.setRange(0, max(0, count - 1))
            spin.blockSignals(False)
        if tokens != self._tokens:
            self._tokens = list(tokens)
            self.query_combo.blockSignals(True)
            keep = self.query_combo.currentIndex()
            self.query_combo.clear()
            self.query_combo.addItems([f"{i}: {display_label(t)}" for i, t in enumerate(tokens)])
            self.query_combo.setCurrentIndex(min(max(keep, 0), len(tokens) - 1))
            self.query_combo.blockSignals(False)

    def choose(self, layer: int, head: int, query: int) -> None:
        """Pick layer, head and query token at once (one request)."""
        for widget, value in ((self.layer_spin, layer), (self.head_spin, head)):
            widget.blockSignals(True)
            widget.setValue(value)
            widget.blockSignals(False)
        self.query_combo.blockSignals(True)
        self.query_combo.setCurrentIndex(query)
        self.query_combo.blockSignals(False)
        self._ask()

    def choice(self) -> tuple[int, int, int]:
        return self.layer_spin.value(), self.head_spin.value(), self.query_combo.currentIndex()

    def _ask(self) -> None:
        layer, head, query = self.choice()
        if query >= 0:
            self.where.setText("Computing…")
            self.request.emit(layer, head, query)

    # ------------------------------------------------------------ stepping
    def set_walkthrough(self, steps: AttentionWalkthrough | None, message: str = "") -> None:
        """Show computed steps (the step shown stays where it was), or a message instead."""
        self._steps = steps
        if steps is None:
            self.canvas.clear()
            self.where.setText(message)
            self.caption.setText("")
        self._show_step()

    def walkthrough(self) -> AttentionWalkthrough | None:
        return self._steps

    def step(self) -> int:
        return self._step

    def step_count(self) -> int:
        return len(STEP_TITLES)

    def set_step(self, index: int) -> None:
        self._step = min(max(int(index), 0), len(STEP_TITLES) - 1)
        self._show_step()

    def next(self) -> bool:
        """One step on (False at the last step)."""
        if self._step >= len(STEP_TITLES) - 1:
            return False
        self.set_step(self._step + 1)
        return True

    def previous(self) -> bool:
        if self._step <= 0:
            return False
        self.set_step(self._step - 1)
        return True

    # ------------------------------------------------------------- drawing
    def _show_step(self) -> None:
        i = self._step
        self.previous_button.setEnabled(i > 0)
        self.next_button.setEnabled(i < len(STEP_TITLES) - 1)
        s = self._steps
        if s is None:
            return
        q = s.query_index
        word = display_label(s.tokens[q])
        self.where.setText(f"layer {s.layer}, head {s.head}, query “{word}” · step {i + 1} of "
                           f"{len(STEP_TITLES)}: {STEP_TITLES[i]}")
        hidden = ~s.visible
        tokens, canvas = s.tokens, self.canvas
        top = _top(s.weights, s.visible)
        key = display_label(tokens[top])
        if i == 0:
            canvas.show_rows([tokens[q]], s.query[None, :], highlight=0)
            text = (f"The query vector of “{word}” in this head: {s.d_k} numbers, its slice of the layer's query "
                    f"projection. Largest: {s.query.max():.3f}, smallest: {s.query.min():.3f}.")
        elif i == 1:
            canvas.show_rows(tokens, s.keys, highlight=q, greyed=hidden)
            text = (f"Every token's key vector (the key projection's slice for head {s.head})."
                    + (" Keys after the query are greyed: GPT-2 is causal and cannot look ahead." if s.causal else ""))
        elif i == 2:
            canvas.show_rows(tokens, s.products, highlight=q, greyed=hidden)
            text = "q ⊙ k: each key multiplied by the query, number by number. Where both agree in sign, positive."
        elif i == 3:
            canvas.show_bars(tokens, s.scores, highlight=q, greyed=hidden)
            text = (f"q · k: the sum of each row of q ⊙ k. Largest for “{key}”: {s.scores[top]:.3f}.")
        elif i == 4:
            canvas.show_bars(tokens, s.scaled, highlight=q, greyed=hidden)
            text = (f"Divided by {s.divisor:.3f} (√d_k = √{s.d_k}) so the softmax does not saturate as d_k grows: "
                    f"“{key}” {s.scores[top]:.3f} → {s.scaled[top]:.3f}.")
        elif i == 5:
            canvas.show_bars(tokens, s.weights, highlight=q, greyed=hidden)
            text = (f"Softmax over the keys the query may see: the weights are positive and sum to 1. "
                    f"“{word}” looks most at “{key}” ({s.weights[top]:.3f}).")
        elif i == 6:
            canvas.show_rows(tokens, s.weighted, highlight=q, greyed=hidden)
            text = "Each token's value vector times its weight: tokens with little weight fade to 0."
        else:
            canvas.show_rows([tokens[q]], s.output[None, :], highlight=0)
            text = (f"The sum of the weighted values: the head's output for “{word}” ({s.d_k} numbers), "
                    "the same as the model's own attention output for this head.")
        self.caption.setText(text)
        named = top if 3 <= i <= 5 else (q if i in (1, 2, 6) else 0)  # the row the text names, or the query's
        QTimer.singleShot(0, self, lambda: self._show_row(named))

    def _show_row(self, row: int) -> None:
        """Scroll the canvas so that ``row`` shows (a long sentence at F5 shows a few of its rows at a time)."""
        top, height = self.canvas.row_span(row)
        self.canvas_scroll.ensureVisible(0, top + height // 2, 0, height)
