"""The Compare tab: the layer × layer linear CKA between model A and model B on the text box's words.

A ``ModelView``: with a model B compared (``ctx.compared``) it runs ``lm_workbench.compare.jobs.layer_cka``
on the text (each non-empty line one text) and shows the matrix as a heatmap, rows A's layers, columns B's;
without one it says how to load one.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from lm_workbench.ui import theme
from lm_workbench.ui.view_kit.model_label import spec_label
from lm_workbench.ui.view_kit.view_base import Computation, Inputs, ModelView
from lm_workbench.ui.widgets.heatmap import HeatmapView
from lm_workbench.ui.widgets.notice import Notice
from lm_workbench.compare.jobs import layer_cka

NO_B_HINT = ("Compare with… (in the model panel, or a finished run's Compare with this in the Runs tab) loads a "
             "second model: this tab then shows how alike its layers are to this model's.")


class CompareView(ModelView):
    no_model_hint = "Load a model (left), then Compare with… a second one."
    empty_hint = "Type a sentence above: its words are what the two models are compared on."

    def __init__(self, ctx: Any = None, parent: QWidget | None = None):
        super().__init__(ctx, parent)
        self.result: Any = None  # the engine's LayerCka
        self.notice = Notice()
        self.summary = QLabel()
        self.summary.setObjectName("summary")
        self.summary.setWordWrap(True)
        self.heatmap = HeatmapView(empty_hint="The layer × layer CKA of A and B shows here.")
        self.heatmap.set_axes("A layer", "B layer")
        layout = QVBoxLayout(self)
        theme.bind(layout, lambda w, m: w.setContentsMargins(*m.view_margins))
        theme.bind(layout, lambda w, m: w.setSpacing(m.section_spacing))
        layout.addWidget(self.notice)
        layout.addWidget(self.summary)
        layout.addWidget(self.heatmap, 1)

    def computation(self, inputs: Inputs) -> Computation | None:
        b = self.ctx.compared if self.ctx is not None else None
        if b is None:
            self.show_hint(NO_B_HINT)
            return None
        a, texts = inputs.loaded, [line for line in inputs.text.splitlines() if line.strip()]
        return Computation(key=(inputs.model_key, id(b), b.info.spec, tuple(texts)),
                           fn=lambda cancel: layer_cka(a, b, texts, cancel), on_done=self.set_result,
                           label="Comparing layers (CKA)…")

    def set_result(self, result: Any) -> None:
        self.result = result
        self.notice.clear_message()
        a, b = spec_label(result.model_a), spec_label(result.model_b)
        self.summary.setText(f"Linear CKA over {len(result.words)} words: rows are A ({a}) layers, columns B ({b}) "
                             "layers; 0 is the embeddings.")
        self.heatmap.set_matrix(result.cka, [f"A {i}" for i in result.layers_a], [f"B {j}" for j in result.layers_b],
                                f"CKA: {a} × {b}")

    def show_hint(self, text: str) -> None:
        self.result = None
        self.summary.setText("")
        self.heatmap.set_matrix(None)
        self.notice.show_message(text, "info")

    def export_widget(self) -> QWidget:
        return self.heatmap
