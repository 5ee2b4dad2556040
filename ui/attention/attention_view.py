"""The Attention tab: controls, the head view, the model grid and one head's heatmap.

The model runs (``lm_workbench.engine.analysis.encode`` with attentions) when the text,
the pair, the model or the decoder target changes and the tab is visible;
the view host schedules it. Everything else (layer, heads, kind, hiding,
threshold) redraws from the kept encoding without running the model.

A model with no attention (ELMo: LSTMs) gets a notice that says so and, in
the heatmap, the token-similarity matrix of a chosen layer instead: the
cosine between every two tokens' vectors (``lm_workbench.engine.attention.token_similarity``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QMenu, QSplitter, QWidget

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.ui import theme
from lm_workbench.ui.attention.attention_controls import AttentionControls
from lm_workbench.ui.attention.walkthrough_panel import WalkthroughPanel
from lm_workbench.ui.attention.model_b_heads import ModelBHeads
from lm_workbench.ui.view_kit.model_label import spec_label
from lm_workbench.ui.view_kit.scroll_into_view import scroll_into_view
from lm_workbench.ui.view_kit.view_base import Computation, Inputs, ModelView, paired
from lm_workbench.ui.widgets.model_b_split import ModelBSplit
from lm_workbench.ui.widgets.notice import Notice
from lm_workbench.ui.widgets.boxes import column, flush_column
from lm_workbench.ui.widgets.controls import label
from lm_workbench.ui.widgets.scroll_area import scroll_area
from lm_workbench.ui.attention.head_view import HeadView
from lm_workbench.attention.for_views import grid_values
from lm_workbench.attention.state import AttentionState
from lm_workbench.ui.attention.model_grid import MEAN, ModelGrid
from lm_workbench.ui.widgets.export import export_dialog, save_widget
from lm_workbench.ui.widgets.heatmap import HeatmapView
from lm_workbench.ui.view_kit.view_context import ViewContext
from lm_workbench.attention.view_tasks import walkthrough_of, encode_attention, encode_states
from lm_workbench.compare.view_tasks import encode_b
from lm_workbench.export import export_csv, export_npy, suggest_filename

if TYPE_CHECKING:
    from lm_workbench.attention.for_views import Encoding
    from lm_workbench.attention.for_views import AttentionSide


MAX_TOKENS = 512  # all attentions of a text: layers x heads x tokens^2 floats (a 1.1B Llama at 512: 0.7 GB)


def capped_note(encoding: Encoding) -> str | None:
    """What the view says when the text is longer than the tokens it shows (its cap, or the model's window)."""
    tok = encoding.tokenized
    if not tok.truncated:
        return None
    middle = tok.keep != "end" and tok.window is not None and tok.window.first > 1
    which = f"{len(tok.ids)} of {tok.full_length} tokens around the masks" if middle else \
        f"the {'last' if tok.keep == 'end' else 'first'} {len(tok.ids)} of {tok.full_length} tokens"
    read = f" ({tok.window_note}, special tokens not counted)" if tok.window_note else ""
    return (f"Showing {which}{read}: every layer's and head's "
            f"attention grows with the square of the length, so this view reads at most {MAX_TOKENS} tokens (or "
            "the model's window). Shorten the text to see the rest.")


NO_ATTENTION_NOTICE = (
    "{model} is an LSTM language model (ELMo): it has no attention to show. Shown instead: the cosine similarity "
    "between every two tokens' vectors at the chosen layer (0 = the character-CNN word vectors, which ignore "
    "context; 1..{top} = the biLSTM layers)."
)


class AttentionView(ModelView):
    no_model_hint = "Load a model (left) to see its attention."
    empty_hint = "Type a sentence above to see where each token looks."

    def __init__(self, ctx: ViewContext | None = None, parent: QWidget | None = None):
        super().__init__(ctx, parent)
        self.state = AttentionState()
        self.controls = AttentionControls()
        self.notice = Notice()
        self.head_view = HeadView()
        self.grid = ModelGrid()
        self.heatmap = HeatmapView()
        self.head_scroll = scroll_area(self.head_view)
        self.b = ModelBHeads()  # model B's head view, while comparing two models
        self.ab = ModelBSplit(self.head_scroll, self.b.scroll)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.grid_title = label(name="titleA")  # "A: bert" over the grid and the heatmap while comparing (A only)
        self.grid_title.setTextFormat(Qt.TextFormat.PlainText)
        self.grid_title.hide()
        a_figures = QSplitter(Qt.Orientation.Horizontal)
        a_figures.addWidget(self.grid)
        a_figures.addWidget(self.heatmap)
        a_figures.setChildrenCollapsible(False)
        self.a_figures = a_figures
        a_only = QWidget()
        flush_column(a_only, self.grid_title, (a_figures, 1))
        self.splitter.addWidget(self.ab)
        self.splitter.addWidget(a_only)
        self.splitter.setStretchFactor(0, 4)
        self.splitter.setStretchFactor(1, 6)
        self.splitter.setChildrenCollapsible(False)
        self.walkthrough_panel = WalkthroughPanel()
        self.walkthrough_panel.hide()
        self.steps_split = QSplitter(Qt.Orientation.Vertical)  # the figures above, the step-by-step panel below
        self.steps_split.addWidget(self.splitter)
        self.steps_split.addWidget(self.walkthrough_panel)
        self.steps_split.setChildrenCollapsible(False)
        self.state.encoding_busy = False  # the host runs this view's encoding now (set_busy)
        self._sized = False
        column(self, self.controls, self.notice, (self.steps_split, 1))
        self._build_export_menu()
        theme.bind(self, lambda w, m: w._resize_after_tokens())  # F5: the head views' columns change width
        theme.follow(self, self._figures_floor)  # F5 scales the floor with the type
        self.controls.changed.connect(self._redraw)
        self.controls.hide_special.toggled.connect(lambda _: self._update_grid())
        self.controls.kind_combo.currentIndexChanged.connect(lambda _: self._set_kind())
        self.controls.target_changed.connect(self.inputs_changed)
        self.head_view.lines_changed.connect(self.controls.set_lines)
        self.grid.cell_clicked.connect(self.select_cell)
        self.controls.steps_button.clicked.connect(lambda: self.open_walkthrough())
        self.walkthrough_panel.request.connect(self._compute_walkthrough)
        self.walkthrough_panel.closed.connect(self.close_walkthrough)

    def _build_export_menu(self) -> None:
        menu = QMenu(self)
        for figure, which in (("Head view", "head"), ("Model grid", "grid"), ("Heatmap", "heatmap")):
            action = QAction(f"{figure} as PNG or SVG…", self)
            action.triggered.connect(lambda _=False, w=which: self.export_picture(w))
            menu.addAction(action)
        menu.addSeparator()
        menu.addAction("Attention tensor (NPY)…", lambda: self.export_tensor())
        menu.addAction("Head as CSV…", lambda: self.export_head_csv())
        self.controls.export_button.setMenu(menu)
        self.export_menu = menu

    # ------------------------------------------------------ host interface
    def computation(self, inputs: Inputs) -> Computation:
        self._set_no_attention(inputs.loaded.info.family == "biLM")
        if self.state.no_attention:
            loaded, text, pair, tokens = inputs.loaded, inputs.text, inputs.pair, inputs.tokens
            return self._with_b(Computation(key=(inputs.model_key, text, pair, None),
                                            fn=lambda cancel: encode_states(loaded, text, pair, cancel, tokens),
                                            on_done=self.set_states, label="Computing token vectors…"), inputs)
        seq2seq = inputs.loaded.info.family == "encoder-decoder"
        self.controls.set_family(inputs.loaded.info.family)
        if self.state.set_seq2seq(seq2seq):
            self.controls.set_seq2seq(seq2seq)
        target = self.controls.target() if seq2seq else None
        loaded, text, pair, tokens = inputs.loaded, inputs.text, inputs.pair, inputs.tokens
        comp = Computation(  # the window's tokens are reused (tokenized again only when MAX_TOKENS cuts them)
            key=(inputs.model_key, text, pair, target),
            fn=lambda cancel: encode_attention(loaded, text, pair, target, MAX_TOKENS, grid_values, cancel, tokens),
            on_done=lambda result: self.set_encoding(*result),
            label="Computing attention…",
        )
        return self._with_b(comp, inputs)

    def _with_b(self, comp: Computation, inputs: Inputs) -> Computation:
        """``comp``, then model B's encoding of the same text when a model B is compared (A | B)."""
        b = self.ctx.model_b if self.ctx is not None else None
        was = self.ab.comparing()
        self.ab.set_models(spec_label(inputs.loaded.info.spec), spec_label(b.info.spec) if b is not None else None)
        comparing = self.ab.comparing()
        self.grid_title.setText(f"A: {spec_label(inputs.loaded.info.spec)}")
        self.grid_title.setVisible(comparing)
        if comparing != was and self._sized:
            QTimer.singleShot(0, self, self._size_splitter)  # two head views need the width to show both columns
        text, pair = inputs.text, inputs.pair
        return paired(comp, b, lambda cancel: encode_b(b, text, pair, MAX_TOKENS, cancel), self._show_b)

    def _show_b(self, encoding: Any) -> None:
        self.b.set_encoding(encoding)
        self._redraw()

    def _set_no_attention(self, on: bool) -> None:
        if not self.state.set_no_attention(on):
            return
        self.controls.set_similarity_mode(on)
        self.ab.setVisible(not on)  # (A | B while comparing)
        self.grid.setVisible(not on)

    def has_attention(self) -> bool:
        return not self.state.no_attention

    def set_states(self, encoding: Encoding) -> None:
        """Show a model with no attention: the notice, and the similarity matrix of the chosen layer."""
        self.state.set_states(encoding)
        layers = encoding.hidden_states.shape[0]
        self.controls.set_shape(layers, 0)
        model = self.ctx.model_spec() if self.ctx is not None else "this model"
        self.notice.show_message(NO_ATTENTION_NOTICE.format(model=Path(str(model)).name or model, top=layers - 1),
                                 "info")
        self._redraw()

    def similarity(self) -> np.ndarray | None:
        """The token-similarity matrix shown for a model with no attention (None otherwise)."""
        return None if self.state.similarity is None else self.state.similarity.copy()

    def show_hint(self, text: str) -> None:
        self.state.clear()
        self.walkthrough_panel.set_walkthrough(None, "")
        self.notice.clear_message()
        self.head_view.show_hint(text)
        self.b.clear(text)
        self.grid.set_side(None)
        self.heatmap.set_matrix(None)

    def show_failure(self, message: str) -> None:
        self.show_hint("")
        self.notice.show_message(message, "warning")

    def set_busy(self, busy: bool) -> None:
        self.state.encoding_busy = busy
        # nothing shown yet: say what is happening (or that it stopped)
        if self.state.encoding is None and not self.state.no_attention:
            self.head_view.show_hint("Computing attention…" if busy else "The attention appears here once computed.")

    def model_b_split(self) -> ModelBSplit:
        return self.ab

    def export_widget(self) -> QWidget:
        return self.steps_split if self.walkthrough_panel.isVisible() else self.splitter

    def showEvent(self, event) -> None:  # noqa: N802
        super().showEvent(event)
        if not self._sized:  # once the layout has given the splitter its width (after this event)
            self._sized = True
            QTimer.singleShot(0, self, self._size_splitter)

    def _resize_after_tokens(self) -> None:
        if self._sized:
            QTimer.singleShot(0, self, self._size_splitter)

    def _size_splitter(self) -> None:
        """Head view, grid, heatmap: 36 / 28 / 36 % of the width to start with; comparing, the two head views
        get at least what each needs to show its query and key columns (no scroll bar hides "Key (to)")."""
        width = max(self.splitter.width(), 600)
        heads = int(width * 0.36)
        if self.ab.comparing():
            bar = self.head_scroll.verticalScrollBar().sizeHint().width()
            need = 2 * (self.head_view.minimumSizeHint().width() + bar + 2 * self.head_scroll.frameWidth())
            heads = min(max(heads, need + self.ab.handleWidth()), int(width * 0.7))
        rest = width - heads
        self.splitter.setSizes([heads, rest])
        if self.ab.comparing():
            self.ab.setSizes([heads // 2, heads - heads // 2])
        self.a_figures.setSizes([int(rest * 0.44), rest - int(rest * 0.44)])

    # ------------------------------------------------------------- results
    def set_encoding(self, encoding: Encoding, mosaics: dict | None = None) -> None:
        self.state.set_encoding(encoding, mosaics)
        self.notice.clear_message()
        capped = capped_note(encoding)
        if capped:
            self.notice.show_message(capped, "info")
        self._set_kind()
        if self.walkthrough_panel.isVisible():
            self._refresh_walkthrough()

    def encoding(self) -> Encoding | None:
        return self.state.encoding

    def side(self) -> AttentionSide | None:
        return self.state.side

    def _set_kind(self) -> None:
        enc = self.state.encoding
        if enc is None:
            return
        try:
            self.state.choose_kind(self.controls.kind())
        except WorkbenchError as exc:
            self.show_failure(str(exc))
            return
        layers, heads = self.state.side.weights.shape[:2]
        self.controls.set_shape(layers, heads)
        if enc.decoder is not None:
            source = "the model's own greedy output" if enc.decoder.from_greedy else "your target (teacher forcing)"
            self.controls.kind_note.setText(f"decoder side: {source}, {len(enc.decoder.tokens)} tokens")
        self.head_view.set_side(self.state.side)
        self._apply_preset_selection()
        self._update_grid()
        self._redraw()

    def _update_grid(self) -> None:
        hide = self.controls.hide_special.isChecked()
        values = self.state.grid_values(self.controls.kind(), hide)
        self.grid.set_side(self.state.side, hide=hide, values=values)

    def _redraw(self) -> None:
        if self.state.no_attention:
            self._redraw_similarity()
            return
        if self.state.side is None:
            return
        c = self.controls
        layer, heads = c.layer_spin.value(), c.heads.heads()
        self.head_view.set_selection(layer, heads, hide_special=c.hide_special.isChecked(),
                                     threshold=c.threshold.value())
        if self.ab.comparing():
            shown = self.b.set_selection(layer, heads, hide_special=c.hide_special.isChecked(),
                                         threshold=c.threshold.value())
            self.ab.title_b.setText(self.ab.title_b.text().split(" · ")[0] + (f" · {shown}" if shown else ""))
        self.grid.set_selection(layer, heads)
        matrix, queries, keys = self.current_matrix()
        what = f"head {heads[0]}" if len(heads) == 1 else f"mean of {len(heads)} heads"
        model = "A · " if self.ab.comparing() else ""
        self.heatmap.set_matrix(matrix, queries, keys, f"{model}Layer {layer}, {what}")

    def _redraw_similarity(self) -> None:
        if self.state.encoding is None:
            return
        layer = self.controls.layer_spin.value()
        self.state.similarity_at(layer)
        tokens = self.state.encoding.tokens
        self.heatmap.set_matrix(self.state.similarity, tokens, tokens, f"Layer {layer}: cosine similarity of token vectors",
                                vmin=min(0.0, float(self.state.similarity.min(initial=0.0))))

    # ------------------------------------------------------------ presets
    # what a lecture step or a workspace may set here (apply_preset_step takes them, preset_state reports them)
    preset_settings = frozenset({"layer", "heads", "hide_special", "threshold", "step_by_step"})

    def apply_preset_step(self, settings: dict[str, Any], inputs: dict[str, Any]) -> None:
        """A lecture step or a workspace: ``layer``, ``heads`` ("all" or a list), ``hide_special``,
        ``threshold`` and ``step_by_step`` ({"query_token": "it" or "query": index, "step": i}: the step-by-step
        panel for the first chosen head); the layer, heads and panel wait until the attention is shown (the text
        may be computing). A step without ``step_by_step`` closes the panel."""
        c = self.controls
        if "hide_special" in settings:
            c.hide_special.setChecked(bool(settings["hide_special"]))
        if "threshold" in settings:
            c.threshold.setValue(float(settings["threshold"]))
        self.state.preset = {k: settings[k] for k in ("layer", "heads", "step_by_step") if k in settings}
        if "step_by_step" not in settings and self.walkthrough_panel.isVisible():
            self.close_walkthrough()
        if self.state.side is not None:
            self._apply_preset_selection()
            self._redraw()

    def _apply_preset_selection(self) -> None:
        preset = self.state.take_preset()
        if not preset or self.state.side is None:
            return
        layers, heads = self.state.shape()
        c = self.controls
        layer, picked = self.state.preset_selection(preset, layers, heads, c.layer_spin.value())
        c.layer_spin.blockSignals(True)
        c.layer_spin.setValue(layer)
        c.layer_spin.blockSignals(False)
        if picked is not None:
            c.heads.blockSignals(True)
            c.heads.set_heads(picked)
            c.heads.blockSignals(False)
        steps = preset.get("step_by_step")
        if isinstance(steps, dict):
            query = steps.get("query_token", steps.get("query"))
            self.open_walkthrough(c.layer_spin.value(), (c.heads.heads() or [0])[0], query, int(steps.get("step", 0)))

    def preset_state(self) -> tuple[dict[str, Any], dict[str, Any]]:
        c = self.controls
        heads = c.heads.heads()
        every = self.state.every_head(heads)
        settings: dict[str, Any] = {"layer": c.layer_spin.value(), "heads": "all" if every else heads,
                                    "hide_special": c.hide_special.isChecked(), "threshold": c.threshold.value()}
        if self.walkthrough_panel.isVisible():
            layer, head, query = self.walkthrough_panel.choice()
            settings.update(layer=layer, heads=[head], step_by_step={"query": query, "step": self.walkthrough_panel.step()})
        return settings, {}

    def select_cell(self, layer: int, head: int) -> None:
        """Select a layer and head (MEAN: every head), as a click on the grid does."""
        c = self.controls
        c.layer_spin.blockSignals(True)
        c.layer_spin.setValue(layer)
        c.layer_spin.blockSignals(False)
        c.heads.blockSignals(True)
        c.heads.set_heads(range(self.state.side.weights.shape[1]) if head == MEAN else [head])
        c.heads.blockSignals(False)
        self._redraw()

    def current_matrix(self) -> tuple[np.ndarray | None, list[str], list[str]]:
        """The heatmap's [queries, keys] matrix (the selected head, or the mean of several) and its tokens."""
        from lm_workbench.attention.for_views import attention_matrix, hide_special

        if self.state.no_attention:
            tokens = self.state.encoding.tokens if self.state.encoding is not None else []
            return self.similarity(), list(tokens), list(tokens)
        side, c = self.state.side, self.controls
        heads = c.heads.heads()
        if side is None or not heads:
            return None, [], []
        m = attention_matrix(side, c.layer_spin.value(), heads)
        q_idx, k_idx = np.arange(m.shape[1]), np.arange(m.shape[2])
        if c.hide_special.isChecked():
            m, q_idx, k_idx = hide_special(m, side.query_special, side.key_special)
        return (m.mean(axis=0), [side.query_tokens[i] for i in q_idx], [side.key_tokens[i] for i in k_idx])

    # ------------------------------------------------------ step by step
    def open_walkthrough(self, layer: int | None = None, head: int | None = None, query: int | str | None = None,
                   step: int = 0) -> bool:
        """Open the step-by-step panel for ``layer``, ``head`` and the query token (an index, or the first
        token with that text); None keeps the panel's choice (the first time: the layer and first head shown,
        the first token that is not special). PageDown/PageUp step through it while it is open.
        False (with a message) when there is nothing to step through."""
        side, enc = self.state.side, self.state.encoding
        if self.state.no_attention or side is None or enc is None or self.controls.kind() != "encoder":
            if self.ctx is not None:
                self.ctx.show_message("Step by step needs a model with self-attention and a sentence above "
                                      "(encoder or decoder-only; not the decoder or cross side).", "warning")
            return False
        tokens = list(enc.tokenized.tokens)
        first_time = not self.walkthrough_panel.isVisible()
        self.walkthrough_panel.set_shape(side.weights.shape[0], side.weights.shape[1], tokens)
        current = self.walkthrough_panel.choice()
        if layer is None:
            layer = self.controls.layer_spin.value() if first_time else current[0]
        if head is None:
            heads = self.controls.heads.heads()
            head = (heads[0] if heads else 0) if first_time else current[1]
        if isinstance(query, str):
            matches = [i for i, t in enumerate(tokens) if t == query]
            if not matches:
                if self.ctx is not None:
                    self.ctx.show_message(f"there is no token {query!r} in the sentence", "warning")
                return False
            query = matches[0]
        elif query is None:
            plain = [i for i, special in enumerate(enc.tokenized.special) if not special]
            query = (plain[0] if plain else 0) if first_time or current[2] < 0 else current[2]
        self.walkthrough_panel.show()
        self._figures_floor()
        if first_time:  # the steps take the larger part, the figures still a readable height (the page scrolls)
            total = max(self.steps_split.height(), 400)
            figures = max(int(total * 0.3), self.splitter.minimumHeight())
            self.steps_split.setSizes([figures, max(total - figures, 1)])
        if self.ctx is not None and self.ctx.clicker is not None:
            self.ctx.clicker.push(self.walkthrough_panel)
        self.walkthrough_panel.set_step(step)
        self.walkthrough_panel.choose(int(layer), int(head), int(query))
        scroll_into_view(self.walkthrough_panel)  # below the fold at 720 px with F5: the tab scrolls to it
        return True

    def _figures_floor(self) -> None:
        """While the step-by-step panel is open, the figures above it keep a readable height (a 720 px screen
        with F5 had squashed the heatmap to a stamp); closed, they take the whole height again."""
        open_ = not self.walkthrough_panel.isHidden()
        self.splitter.setMinimumHeight(theme.current().metrics.walkthrough_figures_min_h if open_ else 0)

    def close_walkthrough(self) -> None:
        self.walkthrough_panel.hide()
        self._figures_floor()
        if self.ctx is not None and self.ctx.clicker is not None:
            self.ctx.clicker.remove(self.walkthrough_panel)

    def _refresh_walkthrough(self) -> None:
        """New tokens (a new sentence or model): the panel's ranges, then its choice again."""
        side, enc = self.state.side, self.state.encoding
        if side is None or enc is None or self.controls.kind() != "encoder":
            self.walkthrough_panel.set_walkthrough(None, "No self-attention to step through here.")
            return
        self.walkthrough_panel.set_shape(side.weights.shape[0], side.weights.shape[1], list(enc.tokenized.tokens))
        self._compute_walkthrough(*self.walkthrough_panel.choice())

    def _compute_walkthrough(self, layer: int, head: int, query: int) -> None:
        if self.ctx is None or self.state.encoding is None or self.ctx.loaded is None:
            return
        if self.state.encoding_busy:  # a new encoding is on its way: set_encoding asks again when it lands
            return
        loaded, tokenized = self.ctx.loaded, self.state.encoding.tokenized
        self.ctx.jobs.run(lambda cancel: walkthrough_of(loaded, tokenized, layer, head, query, cancel),
                          self.walkthrough_panel.set_walkthrough, step="steps", label="Computing attention steps…",
                          on_error=lambda exc, tb: self._steps_failed(exc, tb), when_idle=True)

    def _steps_failed(self, exc: BaseException, tb: str) -> None:
        if isinstance(exc, WorkbenchError) and not tb:
            self.walkthrough_panel.set_walkthrough(None, str(exc))
        else:
            self.walkthrough_panel.set_walkthrough(None, "The steps could not be computed (see the message above).")
            if self.ctx is not None:
                self.ctx.show_error(exc, tb)

    # -------------------------------------------------------------- export
    def _ask(self, title: str, kind: str, ext: str, pattern: str) -> Path | None:
        name = suggest_filename(kind, self.ctx.model_spec() if self.ctx else "model", ext)
        path, _ = QFileDialog.getSaveFileName(self, title, str(Path.home() / name), pattern)
        return Path(path) if path else None

    def _saved(self, path: Path | None) -> Path | None:
        if path is not None and self.ctx is not None:
            self.ctx.status(f"Saved {path}")
        return path

    def _refuse(self, what: str) -> None:
        if self.ctx is not None:
            self.ctx.show_error(WorkbenchError(f"there is no attention to export yet: {what}"))

    def export_picture(self, which: str, path: str | Path | None = None) -> Path | None:
        widget = {"head": self.head_view, "grid": self.grid, "heatmap": self.heatmap}[which]
        try:
            if path is None:
                name = suggest_filename(f"attention-{which}", self.ctx.model_spec() if self.ctx else "model", "png")
                return self._saved(export_dialog(self, widget, str(Path.home() / name)))
            return self._saved(save_widget(widget, path))
        except WorkbenchError as exc:
            if self.ctx is not None:
                self.ctx.show_error(exc)
            return None

    def export_tensor(self, path: str | Path | None = None) -> Path | None:
        """The full [layers, heads, queries, keys] tensor of the kind shown, as .npy."""
        if self.state.no_attention:
            if self.ctx is not None:
                self.ctx.show_error(WorkbenchError("an LSTM has no attention tensor to export; "
                                                   "export the similarity matrix as CSV instead"))
            return None
        if self.state.side is None:
            self._refuse("type a sentence first")
            return None
        path = path or self._ask("Export attention tensor", "attention", "npy", "NumPy array (*.npy)")
        return self._saved(export_npy(path, self.state.side.weights)) if path else None

    def export_head_csv(self, path: str | Path | None = None) -> Path | None:
        """The heatmap's matrix as CSV: a row per query token, a column per key token."""
        matrix, queries, keys = self.current_matrix()
        if matrix is None:
            self._refuse("type a sentence first")
            return None
        path = path or self._ask("Export head as CSV", "attention-head", "csv", "CSV (*.csv)")
        if not path:
            return None
        rows = [[q, *(float(v) for v in row)] for q, row in zip(queries, matrix)]
        return self._saved(export_csv(path, (["query \\ key", *keys], rows)))
