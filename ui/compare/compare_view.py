"""The Compare tab: the layer × layer linear CKA between model A and model B on the text box's words.

A ``ModelView`` of a ``lm_workbench.compare.cka_state.CkaState``: with a model B compared (``ctx.model_b``) it runs ``lm_workbench.compare.view_tasks.layer_cka``
on the text (each non-empty line one text) and shows the matrix as a heatmap, rows A's layers, columns B's;
without one it says how to load one.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QWidget

from lm_workbench.ui.view_kit.model_label import spec_label
from lm_workbench.ui.view_kit.view_base import Computation, Inputs, ModelView
from lm_workbench.ui.widgets.boxes import column
from lm_workbench.ui.widgets.controls import label
from lm_workbench.ui.widgets.heatmap import HeatmapView
from lm_workbench.ui.widgets.notice import Notice
from lm_workbench.compare.cka_state import CkaState
from lm_workbench.compare.view_tasks import layer_cka

class CompareView(ModelView):
    no_model_hint = "Load a model (left), then Compare with… a second one."
    empty_hint = "Type a sentence above: its words are what the two models are compared on."

    def __init__(self, ctx: Any = None, parent: QWidget | None = None):
        super().__init__(ctx, parent)
        self.state = CkaState(spec_label)
        self.notice = Notice()
        self.summary = label(name="summary", wrap=True)
        self.heatmap = HeatmapView(empty_hint="The layer × layer CKA of A and B shows here.")
        self.heatmap.set_axes("A layer", "B layer")
        column(self, self.notice, self.summary, (self.heatmap, 1))
        self.state.events.changed.connect(self._show)

    @property
    def result(self) -> Any:
        """The engine's LayerCka shown (the state's)."""
        return self.state.result

    def computation(self, inputs: Inputs) -> Computation | None:
        b = self.ctx.model_b if self.ctx is not None else None
        asked = self.state.request(inputs.model_key, b, inputs.text)
        if asked is None:
            return None
        key, texts = asked
        a = inputs.loaded
        return Computation(key=key, fn=lambda cancel: layer_cka(a, b, texts, cancel), on_done=self.set_result,
                           label="Comparing layers (CKA)…")

    def set_result(self, result: Any) -> None:
        self.state.set_result(result)

    def show_hint(self, text: str) -> None:
        self.state.show_hint(text)

    def _show(self) -> None:
        st = self.state
        self.summary.setText(st.summary())
        if st.result is None:
            self.heatmap.set_matrix(None)
            self.notice.show_message(st.hint, "info")
            return
        self.notice.clear_message()
        self.heatmap.set_matrix(st.result.cka, st.row_labels(), st.column_labels(), st.title())

    def export_widget(self) -> QWidget:
        return self.heatmap
