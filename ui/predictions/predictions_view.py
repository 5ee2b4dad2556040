"""The Predictions tab: what the pre-trained model predicts for the text.

- encoders with an MLM head: the top-k tokens for every [MASK] (fill-mask);
- decoders: the top-k next tokens. Accepting one appends its id to the kept
  list of prompt ids (so the next prediction runs on exactly those ids, not
  on a re-tokenization of the text) and the text box shows the ids decoded;
  "Generate 20 tokens" extends the ids by greedy decoding;
- BART-style encoder-decoders (a mask token): the infilled text.
A model without the head shows the engine's one-line message instead. Under the results, "Explain"
(``lm_workbench.ui.widgets.attribution_panel``) attributes the selected candidate (or the top one; an encoder-decoder's first
output token) to the input tokens off the Qt thread and shows the token heat strip with the raw attention.
A lecture step or a workspace sets the Explain method and attention layer and may ask to explain once the
predictions are shown (``apply_preset_step``). While a model B is compared, B's predictions of the same kind
for the same text show beside A's (A | B, ``lm_workbench.ui.predictions.model_b_predictions``), and Explain explains the same
prediction in B beside A's strip (``lm_workbench.engine.attribution.counterpart``: A's target word, at the same mask, after
the same text, or B's first output token).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QStackedWidget, QWidget

from lm_workbench.attribution.targets import ModelBPrediction, PredictionTarget
from lm_workbench.ui.view_kit.model_label import spec_label
from lm_workbench.ui.view_kit.view_base import Computation, Inputs, ModelView, paired
from lm_workbench.ui.widgets.attribution_panel import METHOD_NAMES, AttributionPanel
from lm_workbench.ui.widgets.boxes import column, row
from lm_workbench.ui.widgets.controls import label, spin_box
from lm_workbench.ui.widgets.model_b_split import ModelBSplit
from lm_workbench.ui.widgets.notice import Notice
from lm_workbench.ui.predictions.model_b_predictions import ModelBPredictions
from lm_workbench.ui.predictions.predictions_pages import FillMaskPage, InfillPage, NextTokenPage
from lm_workbench.ui.view_kit.view_context import ViewContext
from lm_workbench.ui.view_kit.scroll_into_view import scroll_into_view
from lm_workbench.attribution.view_tasks import prediction_in_a_and_b_job, prediction_job
from lm_workbench.compare.view_tasks import predict_b
from lm_workbench.predictions.view_tasks import (
    GENERATE_TOKENS, INFILL_MAX_TOKENS, fill_masks, generate_more, infill_text, next_tokens,
)
from lm_workbench.predictions.state import PredictionsState
from lm_workbench.reading import read_line

MODES = {
    "encoder": "Fill-mask: write [MASK] where a word is missing; each mask gets the model's top k tokens.",
    "decoder": "Next token: the model's top k continuations of the text. Accept one to append it.",
}


def mode_line(loaded: Any) -> str:
    """What the view does with the loaded model, in its own terms: an encoder-decoder's line names its tokenizer's
    mask token, or says it has none (T5's span corruption uses sentinels: infilling cannot be asked here)."""
    family = loaded.info.family
    if family != "encoder-decoder":
        return MODES.get(family, "")
    mask = loaded.tokenizer.mask_token
    if mask is None:
        return ("Infilling needs a mask token, and this model's tokenizer has none (T5-style models use sentinel "
                "tokens: the Masking lab shows them).")
    return f"Infilling: write {mask} (or [MASK]) where a span is missing; the model writes the text back."


NOT_FOR_BILM = ("Predictions are not available for ELMo: this view reads a masked-LM, causal-LM or "
                "sequence-to-sequence head, and ELMo is a pair of LSTM language models. Its layers are in the "
                "Embeddings tab; the Attention tab shows how similar its token vectors are.")


class PredictionsView(ModelView):
    no_model_hint = "Load a model (left) to see what it predicts."
    empty_hint = "Type a sentence above: with [MASK] for a masked LM, or a prompt for a decoder."

    def __init__(self, ctx: ViewContext | None = None, parent: QWidget | None = None):
        super().__init__(ctx, parent)
        self.state = PredictionsState()
        self.mode_label = label(MODES["encoder"], name="summary", wrap=True)
        self.k_spin = spin_box(1, 50, 5, prefix="top k = ")
        self.k_spin.valueChanged.connect(lambda _: self.inputs_changed.emit())
        self.notice = Notice()
        self.fill_page = FillMaskPage()
        self.next_page = NextTokenPage()
        self.infill_page = InfillPage()
        self.pages = QStackedWidget()
        self.empty_page = QWidget()
        for page in (self.empty_page, self.fill_page, self.next_page, self.infill_page):
            self.pages.addWidget(page)
        self.b = ModelBPredictions()  # model B's predictions, while comparing
        self.ab = ModelBSplit(self.pages, self.b)
        self.explain = AttributionPanel("the selected candidate (or the top one)")
        self.explain.explain_requested.connect(self.explain_selected)
        self.explain.cancel_requested.connect(self._cancel_explain)
        column(self, row((self.mode_label, 1), self.k_spin), self.notice, (self.ab, 1), self.explain)
        self.next_page.accept_requested.connect(self.accept)
        self.next_page.generate_requested.connect(self.generate)

    # ------------------------------------------------------ host interface
    def computation(self, inputs: Inputs) -> Computation | None:
        comp = self._computation_a(inputs)
        b = self.ctx.model_b if self.ctx is not None else None
        names = spec_label(inputs.loaded.info.spec), spec_label(b.info.spec) if b is not None else None
        self.ab.set_models(*names)
        self.explain.set_models(*names)
        if comp is None or b is None:
            return comp
        kind, text, k = inputs.loaded.info.family, inputs.text, self.k_spin.value()
        return paired(comp, b, lambda cancel: predict_b(b, kind, text, k, INFILL_MAX_TOKENS, cancel),
                      self._show_b)

    def _computation_a(self, inputs: Inputs) -> Computation | None:
        loaded, text, k = inputs.loaded, inputs.text, self.k_spin.value()
        family = loaded.info.family
        self.explain.setVisible(family != "biLM")
        if family == "biLM":
            self.mode_label.setText("")
            self.show_hint(NOT_FOR_BILM)
            return None
        self.state.use_model(loaded)
        self.mode_label.setText(mode_line(loaded))
        self.k_spin.setEnabled(family != "encoder-decoder")
        key: tuple = (inputs.model_key, text, family)
        if family == "decoder":
            ids = self.state.prompt_ids(text)
            return Computation((*key, k, tuple(ids) if ids else None),
                               lambda cancel: next_tokens(loaded, text, ids, k, cancel), self._show_next)
        if family == "encoder-decoder":
            self.state.asked_text = text
            return Computation(key, lambda cancel: infill_text(loaded, text, cancel), self._show_infill,
                               label="Infilling…")
        return Computation((*key, k), lambda cancel: fill_masks(loaded, text, k, cancel), self._show_fill)

    # the state's, by the names tests read
    _busy = property(lambda self: self.state.busy)
    _loaded = property(lambda self: self.state.loaded)

    def set_busy(self, busy: bool) -> None:
        self.state.busy = busy

    def show_hint(self, text: str) -> None:
        self._show_nothing(text, "info")

    def show_failure(self, message: str) -> None:
        self._show_nothing(message, "warning")

    def _show_nothing(self, message: str, level: str) -> None:
        """No predictions: the empty page, ``message`` in the notice at ``level``, no Explain waiting, B cleared."""
        self.state.show_nothing()
        self.pages.setCurrentWidget(self.empty_page)
        self.notice.show_message(message, level)
        self._drop_pending_explain()
        self._clear_b()

    def _clear_b(self) -> None:
        """B's side goes with A's result: a line or predictions of an earlier model or text never stay beside a
        hint or a failure (B's answer to the new input comes with A's, in the same job)."""
        self._show_b(("why", ""))

    def _drop_pending_explain(self) -> None:
        """No predictions to explain: an Explain waiting for them ends."""
        if self.state.explain_pending:
            self.state.explain_pending = False
            self.explain.clear()
            self.explain.set_busy(False)

    # ------------------------------------------------------------- results
    def _show_b(self, result: tuple[str, Any]) -> None:
        """B's predictions, or the B column's line saying why there are none."""
        self.ab.show_b_reason(result[1] if result[0] == "why" else "")
        self.b.show_result(result)

    def model_b_split(self) -> ModelBSplit:
        return self.ab

    def _show_read(self, line: str | None) -> None:
        """The window line ("tokens a–b of n") when the model read only part of the text, else no notice."""
        if line:
            self.notice.show_message(line, "info")
        else:
            self.notice.clear_message()

    def _show_fill(self, result: tuple[list[str], list, list[int], str, str | None]) -> None:
        tokens, preds, ids, text, line = result
        self.state.show_fill(ids, preds, text)
        self.explain.clear()
        self._show_read(line)
        self.fill_page.set_predictions(tokens, preds)
        self.pages.setCurrentWidget(self.fill_page)
        self._explain_if_asked()

    def _show_next(self, result: dict) -> None:
        self.state.show_next(result)
        self.explain.clear()
        self._show_read(result.get("read"))
        self.next_page.set_candidates(result["ids"], result["candidates"], result["tail"])
        self.pages.setCurrentWidget(self.next_page)
        self._explain_if_asked()

    def _show_infill(self, result: tuple[Any, list[str]]) -> None:
        infilling, out_tokens = result
        self.state.show_infill()
        self.explain.clear()
        window = infilling.window
        self._show_read(read_line([window.note]) if window is not None and window.cut else None)
        self.infill_page.set_result(infilling.source_tokens, infilling.text, out_tokens)
        self.pages.setCurrentWidget(self.infill_page)
        self._explain_if_asked()

    # ------------------------------------------------------------- explain
    def _selection(self) -> tuple[int, int]:
        """(mask index, candidate row) selected on the page shown (0, 0: the first mask's top candidate)."""
        page = self.pages.currentWidget()
        if page is self.next_page:
            rows = self.next_page.table.selectionModel().selectedRows()
            return 0, rows[0].row() if rows else 0
        if page is self.fill_page and self.fill_page.tables:
            index = next((i for i, t in enumerate(self.fill_page.tables) if t.selectionModel().hasSelection()), 0)
            rows = self.fill_page.tables[index].selectionModel().selectedRows()
            return index, rows[0].row() if rows else 0
        return 0, 0

    def _page_state(self) -> bool:
        """The page shown is the state's result (not the empty page of a hint)."""
        page = self.pages.currentWidget()
        return {"next": self.next_page, "fill": self.fill_page, "infill": self.infill_page}.get(
            self.state.shown) is page

    def explain_request(self) -> PredictionTarget | None:
        """What Explain would attribute now: the ids and the chosen token (None: nothing shown)."""
        return self.state.explain_request(*self._selection()) if self._page_state() else None

    def model_b_request(self) -> ModelBPrediction | None:
        """Where model B makes the prediction Explain explains: the text, its kind and (masked LMs) which mask."""
        return self.state.model_b_request(self._selection()[0]) if self._page_state() else None

    def explain_selected(self) -> None:
        if self.state.busy:  # the predictions are being computed (A's, or A's and B's): explain what they show
            self.state.explain_pending = True
            self.explain.set_busy(True)
            self.explain.summary.setText("Explaining once the predictions are shown…")
            return
        request = self.explain_request()
        if request is None or self.ctx is None or self.state.loaded is None:
            self.explain.show_error("Nothing to explain yet: wait for the predictions.")
            return
        request = request.with_foil(self.explain.foil_request())  # "instead of": a foil, or the second choice
        loaded, method, layer = self.state.loaded, self.explain.method(), self.explain.layer()
        b, b_request = self.ctx.model_b, self.model_b_request()
        self.explain.set_busy(True)
        if b is not None and b_request is not None and self.explain.comparing():
            fn = prediction_in_a_and_b_job(loaded, request, b, b_request, method, layer)

            def done(pair: tuple[Any, Any]) -> None:
                self.explain.show_explanation(pair[0])
                self.explain.show_model_b(pair[1])
                scroll_into_view(self.explain)  # the strip, not the candidates above it (below the fold with F5)
        else:
            fn = prediction_job(loaded, request, method, layer)

            def done(result: Any) -> None:
                self.explain.show_explanation(result)
                scroll_into_view(self.explain)
        self.ctx.jobs.run(fn, done, step="explain", label="Explaining the prediction…",
                          on_error=lambda exc, tb: self._explain_failed(exc, tb),
                          on_cancelled=self.explain.show_cancelled)

    def _explain_failed(self, exc: BaseException, tb: str) -> None:
        from lm_workbench.engine.errors import WorkbenchError

        if isinstance(exc, WorkbenchError) and not tb:
            self.explain.show_error(str(exc))
        else:
            self.explain.show_error("The explanation could not be computed (see the message above).")
            if self.ctx is not None:
                self.ctx.show_error(exc, tb)

    def _cancel_explain(self) -> None:
        if self.state.explain_pending:  # waiting for the predictions: stop waiting, leave them computing
            self.state.explain_pending = False
            self.explain.show_cancelled()
            return
        if self.ctx is not None:
            self.ctx.jobs.cancel()

    # ------------------------------------------------------------- presets
    # what a lecture step or a workspace may set here (apply_preset_step takes them, preset_state reports them)
    preset_settings = frozenset({"method", "layer", "explain", "contrast", "second_choice"})

    def apply_preset_step(self, settings: dict[str, Any], inputs: dict[str, Any]) -> None:
        """A lecture step or a workspace: the Explain panel's ``method`` (``grad-input``,
        ``integrated-gradients``, ``rollout``, ``flow``) and attention ``layer`` (-1: the last), and ``explain``
        (true: explain the top prediction, or the selected one, once the predictions for the text are shown);
        ``contrast`` the "instead of" token (absent: none) or ``second_choice`` (true: against the model's
        runner-up)."""
        if "method" in settings:
            if settings["method"] not in METHOD_NAMES:
                raise ValueError(f"method must be one of {', '.join(METHOD_NAMES)}, not {settings['method']!r}")
            self.explain.set_method(str(settings["method"]))
        if "layer" in settings:
            layer = int(settings["layer"])
            loaded = self.ctx.loaded if self.ctx is not None else None
            if loaded is not None and layer >= 0:  # clamped to the model's last layer, as Attention does
                layer = min(layer, loaded.info.layers - 1)
            spin = self.explain.layer_spin
            spin.setMaximum(max(spin.maximum(), layer))  # the model's count is known after an explanation
            spin.setValue(layer)
        self.explain.set_contrast(str(settings.get("contrast") or ""))
        if settings.get("second_choice"):
            self.explain.ask_second_choice()
        self.state.explain_pending = bool(settings.get("explain"))
        if self.state.explain_pending:
            QTimer.singleShot(0, self, self._explain_if_asked)  # after the host has asked for the step's predictions

    def preset_state(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The Explain method and layer, whether an explanation is shown (it is recomputed) and the "instead of"
        token when there is one."""
        state = {"method": self.explain.method(), "layer": self.explain.layer(),
                 "explain": self.explain.strip.isVisibleTo(self.explain)}
        contrast = self.explain.contrast_edit.text()
        return (state | {"contrast": contrast} if contrast.strip() else state), {}

    def _explain_if_asked(self) -> None:
        if self.state.explain_pending and not self.state.busy and self.explain_request() is not None:
            self.state.explain_pending = False
            self.explain_selected()

    # ----------------------------------------------------- decoder actions
    def ids(self) -> list[int]:
        """The decoder prompt ids the candidates were computed for."""
        return self.state.shown_ids()

    def candidates(self) -> list:
        return self.state.candidates()

    def accept(self, row: int = 0) -> None:
        """Append candidate ``row`` to the prompt ids; the text box shows them decoded."""
        accepted = self.state.accepted(row)
        if accepted is not None:
            self._set_prompt(*accepted)

    def generate(self) -> None:
        if not self.state.next or self.ctx is None or self.state.loaded is None:
            return
        loaded, ids = self.state.loaded, self.state.shown_ids()
        self.compute(Computation(("generate", tuple(ids)), lambda cancel: generate_more(loaded, ids, cancel),
                                        lambda result: self._set_prompt(*result),
                                        label=f"Generating {GENERATE_TOKENS} tokens…"))

    def _set_prompt(self, ids: list[int], text: str) -> None:
        self.state.keep_prompt(ids, text)
        if self.ctx is not None:
            self.ctx.set_text(text)  # the pause after typing recomputes...
        self.inputs_changed.emit()  # ...or, if the text did not change (a special token), this does
