"""Explain (attribution): the controls a view puts under its predictions: a method, the attention layer,
Explain and Cancel, a line saying what was explained, and the token heat strip (``token_strip.TokenStrip``).

The panel computes nothing: it emits ``explain_requested`` and the view runs one of
``lm_workbench.attribution.view_tasks`` through its job mechanism, then calls ``show_explanation``
(or ``show_error``). Methods are named as the engine names them (``lm_workbench.engine.attribution.names``).

"instead of" (empty by default: nothing changes) names a foil Y: the strip then explains logit(X) − logit(Y),
"why X and not Y" (a token for language models, a label for classifiers and prompts); "second choice" explains
against the model's best other token (or label) in one click and writes it into the field. Rollout and flow do
not depend on the target, so the field is off for them.

While a model B is compared (``set_models``) the strip shows A | B: B's explanation of the same prediction
(``lm_workbench.engine.attribution.counterpart``) in a second column, with its own line (``show_model_b``).
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QWidget

from lm_workbench.attribution.targets import Foil
from lm_workbench.engine.attribution.names import DEFAULT_STEPS, FLOW, GRAD_INPUT, INTEGRATED_GRADIENTS, ROLLOUT, TARGET_FREE
from lm_workbench.ui.widgets.controls import button, combo_box, line_edit, spin_box
from lm_workbench.ui.widgets.boxes import flush_column
from lm_workbench.ui.widgets.fold import FlowLayout, labelled
from lm_workbench.ui.widgets.model_b_split import ModelBSplit
from lm_workbench.ui.widgets.notice import Notice
from lm_workbench.ui.widgets.token_layout import display_label
from lm_workbench.ui.widgets.token_strip import TokenStrip
from lm_workbench.ui.widgets.wrapped_label import WrappedLabel
from lm_workbench.reading import read_line

METHOD_NAMES = {
    GRAD_INPUT: "gradient × input",
    INTEGRATED_GRADIENTS: f"integrated gradients ({DEFAULT_STEPS} steps)",
    ROLLOUT: "attention rollout",
    FLOW: "attention flow",
}
LAST_LAYER = -1


class AttributionPanel(QWidget):
    explain_requested = Signal()
    cancel_requested = Signal()

    def __init__(self, what: str = "the selected prediction", parent: QWidget | None = None, foil: str = "token"):
        super().__init__(parent)
        self._second_choice = False  # the next explanation's foil is the model's second choice
        self.contrast_edit = line_edit(f"another {foil} (optional)",
                                       tip=f"Why this and not another {foil}: name one {foil} here and the strip "
                                           f"explains the difference of their logits (empty: the {foil}'s own logit)")
        self.contrast_edit.setClearButtonEnabled(True)
        self.contrast_edit.returnPressed.connect(self._explain_plain)
        self.second_button = button("second choice", tip=f"Explain against the model's best other {foil}: why its "
                                                         "choice and not its runner-up",
                                    clicked=self._explain_second_choice)
        self.method_combo = combo_box([(name, method) for method, name in METHOD_NAMES.items()],
                                      tip="How each input token's share in the prediction is measured: gradients "
                                          "(signed) or how attention carries it up the layers (rollout, flow)")
        self.layer_spin = spin_box(LAST_LAYER, 0, LAST_LAYER, prefix="attention of layer ",
                                   tip="The raw attention shown under the tokens: the predicted position's row at "
                                       "this layer, averaged over heads")
        self.layer_spin.setSpecialValueText("last layer")
        self.explain_button = button("Explain", tip=f"Which input tokens {what} rests on", clicked=self._explain_plain)
        self.cancel_button = button("Cancel", clicked=self.cancel_requested, enabled=False)
        self.summary = WrappedLabel("")
        self.summary.setObjectName("summary")
        self.summary.setTextFormat(Qt.TextFormat.RichText)  # tokens such as <mask> are escaped
        self.notice = Notice()
        self.strip = TokenStrip()
        self._name_b: str | None = None
        self.summary_b = WrappedLabel("")  # model B's line, while comparing
        self.summary_b.setObjectName("summary")
        self.summary_b.setTextFormat(Qt.TextFormat.RichText)
        self.strip_b = TokenStrip()
        self.strip_b.hide()
        self.ab = ModelBSplit(_column(self.summary, self.strip), _column(self.summary_b, self.strip_b))
        controls = QWidget()  # the groups wrap to the width instead of widening the window (a small screen)
        row = FlowLayout(controls)
        row.addWidget(labelled(QLabel("Why?"), self.method_combo, self.layer_spin))
        row.addWidget(labelled(QLabel("instead of"), self.contrast_edit, self.second_button))
        row.addWidget(labelled(self.explain_button, self.cancel_button))
        flush_column(self, controls, self.notice, self.ab, spacing="row_spacing")
        self.strip.hide()
        self.ab.hide()  # until there is something to say: "Explaining…", then the strips
        self.method_combo.currentIndexChanged.connect(self._method_changed)

    # ----------------------------------------------------------------- API
    def method(self) -> str:
        return str(self.method_combo.currentData())

    def set_method(self, method: str) -> None:
        self.method_combo.setCurrentIndex(max(0, self.method_combo.findData(method)))

    def layer(self) -> int:
        return self.layer_spin.value()

    def contrast(self) -> str | None:
        """The foil typed in "instead of" (None: none, or a method that takes none)."""
        text = self.contrast_edit.text()  # as typed: " list" and "list" are different tokens
        return text if text.strip() and self.contrast_edit.isEnabled() else None

    def foil_request(self) -> Foil:
        """The foil the views put in their request: a typed ``contrast``, the ``second_choice`` (the one click,
        once) or none."""
        if self._second_choice:
            self._second_choice = False
            return Foil(second_choice=True)
        return Foil(contrast=self.contrast())

    def set_contrast(self, text: str) -> None:
        self.contrast_edit.setText(text)

    def ask_second_choice(self) -> None:
        """The next explanation's foil is the model's runner-up (a lecture step's ``second_choice``)."""
        self._second_choice = True

    def _explain_second_choice(self) -> None:
        self._second_choice = True  # until a view reads it (``foil_request``) or Explain is pressed
        self.explain_requested.emit()

    def _explain_plain(self) -> None:
        self._second_choice = False
        self.explain_requested.emit()

    def _method_changed(self) -> None:
        takes = self.method() not in TARGET_FREE
        self.contrast_edit.setEnabled(takes)
        self.second_button.setEnabled(takes)

    def set_busy(self, busy: bool) -> None:
        self.explain_button.setEnabled(not busy)
        self.second_button.setEnabled(not busy and self.method() not in TARGET_FREE)
        self.cancel_button.setEnabled(busy)
        if busy:
            self.notice.clear_message()
            self.summary.setText("Explaining…")
            self.ab.show()

    def set_models(self, name_a: str | None, name_b: str | None) -> None:
        """Model B's column titled ``name_b`` beside A's, or none (``name_b`` None)."""
        if name_b != self._name_b:  # another B: its explanation is not this one's
            self._name_b = name_b
            self.summary_b.setText("")
            self.strip_b.clear()
            self.strip_b.hide()
        self.ab.set_models(name_a, name_b)

    def comparing(self) -> bool:
        return self.ab.comparing()

    def clear(self) -> None:
        self.summary.setText("")
        self.notice.clear_message()
        self.strip.clear()
        self.strip.hide()
        self.summary_b.setText("")
        self.strip_b.clear()
        self.strip_b.hide()
        self.ab.hide()

    def show_error(self, message: str) -> None:
        self.set_busy(False)
        self.summary.setText("")
        self.notice.show_message(message, "warning")

    def show_cancelled(self) -> None:
        self.set_busy(False)
        self.summary.setText("Cancelled.")

    def show_explanation(self, explanation: Any) -> None:
        """Show an ``lm_workbench.engine.attribution.explain.Explanation``."""
        self.set_busy(False)
        if explanation.layers:
            self.layer_spin.setRange(LAST_LAYER, explanation.layers - 1)
        self.summary.setText(_describe(explanation))
        _show_in(self.strip, explanation)
        if explanation.attribution.contrast is not None:  # the second choice, written where it can be changed
            self.contrast_edit.setText(explanation.attribution.contrast)

    def show_model_b(self, model_b: Any) -> None:
        """Show model B's side (an ``lm_workbench.engine.attribution.counterpart.Counterpart``) beside A's explanation."""
        explanation, note = model_b.explanation, model_b.note
        if explanation is None:
            self.summary_b.setText(html.escape(note))
            self.strip_b.clear()
            self.strip_b.hide()
            return
        self.summary_b.setText(_describe(explanation) + (f". {html.escape(note)}" if note else ""))
        _show_in(self.strip_b, explanation)


def _column(summary: QLabel, strip: TokenStrip) -> QWidget:
    """One model's line over its strip, at the top of its column."""
    box = QWidget()
    flush_column(box, summary, strip, 1)
    return box


def colour_legend(method: str, contrast: bool = False) -> str:
    """What the strip's colours mean for ``method``: signed scores for the gradient methods; rollout and flow are
    shares of attention, never negative, so they have no blue."""
    if method in (ROLLOUT, FLOW):
        return ("the deeper the red, the larger the token's share of the attention reaching that position "
                "(attention is never negative: no token lowers it)")
    if contrast:
        return "red tokens favour the first over the second, blue the second"
    return "red tokens raise it, blue lower it"


def _describe(explanation: Any) -> str:
    """The line above a strip: the method, the target, its logit and position (and IG's completeness gap)."""
    result = explanation.attribution
    where = "output position" if explanation.kind == "seq2seq" else "token"
    name = METHOD_NAMES.get(result.method, result.method)
    if result.contrast is None:
        text = (f"{name} of <b>{html.escape(display_label(result.target))}</b> (logit {result.target_logit:.3f}) at "
                f"{where} {result.position}: {colour_legend(result.method)}")
    else:
        text = (f"{name} of <b>{html.escape(display_label(result.target))}</b> instead of "
                f"<b>{html.escape(display_label(result.contrast))}</b> (logits {result.target_logit:.3f} − "
                f"{result.contrast_logit:.3f} = {result.metric:.3f}) at {where} {result.position}: "
                f"{colour_legend(result.method, True)}")
    if result.completeness_gap is not None:
        what = "difference" if result.contrast is not None else "logit"
        text += (f"; completeness gap {result.completeness_gap:+.2e} (scores sum to "
                 f"{sum(result.scores):.3f}, {what} − baseline {result.metric - result.baseline_logit:.3f})")
    window = read_line(getattr(result, "notes", ()))  # a text longer than the window: which tokens were read
    return text + (f"<br>{html.escape(window)}" if window else "")


def _show_in(strip: TokenStrip, explanation: Any) -> None:
    result = explanation.attribution
    attention_title = (f"under each token: attention of layer {explanation.layer} at the predicted position, "
                       "mean over heads" if explanation.attention is not None else "")
    marked = None if explanation.kind in ("seq2seq", "classifier") else result.position
    title = f"{result.method}: {display_label(result.target)}"
    if result.contrast is not None:
        title += f" instead of {display_label(result.contrast)}"
    strip.set_scores(result.tokens, result.scores, title=title,
                     attention=explanation.attention, attention_title=attention_title, marked=marked)
    strip.show()
