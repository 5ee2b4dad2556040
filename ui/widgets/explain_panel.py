"""The "Explain" controls a view puts under its predictions: a method, the attention layer, Explain and
Cancel, a line saying what was explained, and the token heat strip (``token_strip.TokenStrip``).

The panel computes nothing: it emits ``explain_requested`` and the view runs the engine's
``engine.attribution.explain.explain_steps`` through its job mechanism, then calls ``show_explanation``
(or ``show_error``). Methods are named as the engine names them (``engine.attribution.names``).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QSpinBox, QVBoxLayout, QWidget

from engine.attribution.names import DEFAULT_STEPS, FLOW, GRAD_INPUT, INTEGRATED_GRADIENTS, ROLLOUT
from ui import theme
from ui.widgets.notice import Notice
from ui.widgets.token_layout import display_label
from ui.widgets.token_strip import TokenStrip

METHOD_NAMES = {
    GRAD_INPUT: "gradient × input",
    INTEGRATED_GRADIENTS: f"integrated gradients ({DEFAULT_STEPS} steps)",
    ROLLOUT: "attention rollout",
    FLOW: "attention flow",
}
LAST_LAYER = -1


class ExplainPanel(QWidget):
    explain_requested = Signal()
    cancel_requested = Signal()

    def __init__(self, what: str = "the selected prediction", parent: QWidget | None = None):
        super().__init__(parent)
        self.method_combo = QComboBox()
        for method, name in METHOD_NAMES.items():
            self.method_combo.addItem(name, method)
        self.method_combo.setToolTip("How each input token's share in the prediction is measured: gradients "
                                     "(signed) or how attention carries it up the layers (rollout, flow)")
        self.layer_spin = QSpinBox()
        self.layer_spin.setRange(LAST_LAYER, 0)
        self.layer_spin.setSpecialValueText("last layer")
        self.layer_spin.setValue(LAST_LAYER)
        self.layer_spin.setPrefix("attention of layer ")
        self.layer_spin.setToolTip("The raw attention shown under the tokens: the predicted position's row at "
                                   "this layer, averaged over heads")
        self.explain_button = QPushButton("Explain")
        self.explain_button.setToolTip(f"Which input tokens {what} rests on")
        self.explain_button.clicked.connect(self.explain_requested)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel_requested)
        self.summary = QLabel("")
        self.summary.setObjectName("summary")
        self.summary.setWordWrap(True)
        self.notice = Notice()
        self.strip = TokenStrip()
        row = QHBoxLayout()
        row.addWidget(QLabel("Why?"))
        row.addWidget(self.method_combo)
        row.addWidget(self.layer_spin)
        row.addWidget(self.explain_button)
        row.addWidget(self.cancel_button)
        row.addStretch(1)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        theme.bind(column, lambda w, m: w.setSpacing(m.row_spacing))
        column.addLayout(row)
        column.addWidget(self.summary)
        column.addWidget(self.notice)
        column.addWidget(self.strip)
        self.strip.hide()

    # ----------------------------------------------------------------- API
    def method(self) -> str:
        return str(self.method_combo.currentData())

    def set_method(self, method: str) -> None:
        self.method_combo.setCurrentIndex(max(0, self.method_combo.findData(method)))

    def layer(self) -> int:
        return self.layer_spin.value()

    def set_busy(self, busy: bool) -> None:
        self.explain_button.setEnabled(not busy)
        self.cancel_button.setEnabled(busy)
        if busy:
            self.notice.clear_message()
            self.summary.setText("Explaining…")

    def clear(self) -> None:
        self.summary.setText("")
        self.notice.clear_message()
        self.strip.clear()
        self.strip.hide()

    def show_error(self, message: str) -> None:
        self.set_busy(False)
        self.summary.setText("")
        self.notice.show_message(message, "warning")

    def show_cancelled(self) -> None:
        self.set_busy(False)
        self.summary.setText("Cancelled.")

    def show_explanation(self, explanation: Any) -> None:
        """Show an ``engine.attribution.explain.Explanation``."""
        self.set_busy(False)
        result = explanation.attribution
        if explanation.layers:
            self.layer_spin.setRange(LAST_LAYER, explanation.layers - 1)
        seq2seq = explanation.kind == "seq2seq"
        where = "output position" if seq2seq else "token"
        text = (f"{METHOD_NAMES.get(result.method, result.method)} of <b>{display_label(result.target)}</b> "
                f"(logit {result.target_logit:.3f}) at {where} {result.position}: red tokens raise it, blue lower it")
        if result.completeness_gap is not None:
            text += (f"; completeness gap {result.completeness_gap:+.2e} (scores sum to "
                     f"{sum(result.scores):.3f}, logit − baseline {result.target_logit - result.baseline_logit:.3f})")
        self.summary.setText(text)
        attention_title = (f"under each token: attention of layer {explanation.layer} at the predicted position, "
                           "mean over heads" if explanation.attention is not None else "")
        marked = None if seq2seq or explanation.kind == "classifier" else result.position
        self.strip.set_scores(result.tokens, result.scores, title=f"{result.method}: {display_label(result.target)}",
                              attention=explanation.attention, attention_title=attention_title, marked=marked)
        self.strip.show()
