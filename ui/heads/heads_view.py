"""The Heads tab: which attention heads and MLPs move the prediction, for the text in the text box.

The form writes a ``lm_workbench.heads.state.HeadsState`` (target, "instead of", how heads are ablated, the corpus
file). Like Predictions, the view computes from the text box as the host asks (``computation``):
``lm_workbench.heads.view_tasks.dla_job`` (one forward pass), shown as the layer × head heatmap of each head's direct share of the metric, the per-layer bar chart (heads summed, MLP, embeddings,
biases) and, above them, the model's own metric, the parts' sum and the residual; a post-norm model gets the one
line saying why there is no split. "Ablate every head" runs ``lm_workbench.heads.view_tasks.sweep_job`` through the view's
jobs (progress, Cancel) and fills the second heatmap (ablated − clean) row by row. Both heatmaps and the chart
are what File ▸ Export saves.
"""

from __future__ import annotations

import html
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QFileDialog, QLabel, QWidget

from lm_workbench.ui import theme
from lm_workbench.ui.heads.dla_plot import LayerBars
from lm_workbench.ui.view_kit.view_base import Computation, Inputs, ModelView
from lm_workbench.ui.view_kit.view_context import ViewContext
from lm_workbench.ui.widgets.boxes import column, flush_column, form_rows, row
from lm_workbench.ui.widgets.controls import button, combo_box, label, line_edit, progress_bar, tool_button
from lm_workbench.ui.widgets.heatmap import HeatmapView
from lm_workbench.ui.widgets.notice import Notice
from lm_workbench.reading import read_line
from lm_workbench.ui.widgets.token_layout import display_label
from lm_workbench.ui.view_kit.output_position import OutputPositionRow
from lm_workbench.ui.view_kit.result_origin_line import ResultOriginLine
from lm_workbench.result_origin import ResultOrigin
from lm_workbench.ui.view_kit.computing_view import ComputingView
from lm_workbench.heads.view_tasks import dla_job, sweep_job
from lm_workbench.heads.state import HOWS, HeadsState

SWEEP_HINT = "Press Ablate every head: how far the metric moves without each head shows here."
SWEEP_RUNNING_HINT = "Ablating every head: each layer's row shows here as it is done."
HOW_NAMES = {"zero": "zero: the head's output set to 0", "mean": "mean over a corpus",
             "resample": "resample from a corpus (seeded)"}


def _sweep_notes(notes: list[str]) -> list[str]:
    """The sweep's lines: the window read ("tokens a–b of n") and what the corpus cut, each once."""
    window = [n for n in notes if n.startswith("tokens ")]
    return ([read_line(window)] if window else []) + [n[0].upper() + n[1:] + "." for n in notes if n not in window]


def _shown(token: str | None) -> str:
    return html.escape(display_label(token or ""))


def _metric_name(target: str, contrast: str | None) -> str:
    return f"logit({_shown(target)})" + (f" − logit({_shown(contrast)})" if contrast else "")


def _row_labels(rows: list[str]) -> list[str]:
    return [f"layer {r}" if r.isdigit() else r for r in rows]


class HeadMap(HeatmapView):
    """A layer × head map that asks for less height than a token × token one (the bars go under it)."""

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(320, theme.current().metrics.layer_bars_min_h)


class HeadsView(ComputingView, ModelView):
    task_what, task_unit, task_origin_line, task_done_count = "The heads", "row", "sweep_origin", "rows_done"
    preset_settings = frozenset({"target", "contrast", "how", "corpus", "ablate", "output_position"})
    no_model_hint = "Load a model (left): which of its heads move the prediction shows here."
    empty_hint = "Type a text above: a prompt for a decoder, a text with one [MASK] for a masked LM."

    def __init__(self, ctx: ViewContext | None = None, parent: QWidget | None = None):
        super().__init__(ctx, parent)
        self.state = HeadsState()
        self._sweep_after = False  # a preset asked for the sweep once the split is shown
        self._shown_key: Any = None  # the inputs of the split shown
        self._task_origin: ResultOrigin | None = None  # the origin of the sweep running or last run
        self.target_edit = line_edit("the model's top token, or one vocabulary token (e.g. Ġlist)")
        self.contrast_edit = line_edit("optional: a second token Y, the metric becomes logit(X) − logit(Y)")
        self.how_combo = combo_box([(HOW_NAMES[how], how) for how in HOWS])
        self.corpus_edit = line_edit("mean and resample: a text file, one text a line")
        self.corpus_browse = tool_button("Browse…", tip="Choose the corpus file (UTF-8 text, one text a line)",
                                         clicked=lambda: self.browse_corpus())
        for edit in (self.target_edit, self.contrast_edit, self.corpus_edit):
            edit.textChanged.connect(self._read_form)
        self.how_combo.currentIndexChanged.connect(self._read_form)
        for edit in (self.target_edit, self.contrast_edit):
            edit.editingFinished.connect(self.inputs_changed)  # the host splits the metric again
        self.output_row = OutputPositionRow("The decoder's output token explained (0: the first), after the "
                                            "model's own greedy output before it")
        self.output_spin = self.output_row.spin
        self.output_spin.valueChanged.connect(self._read_form)
        self.output_spin.valueChanged.connect(self.inputs_changed)
        self.sweep_button = button("Ablate every head", clicked=self.run_sweep,
                                   tip="Take each head out alone and see how far the metric moves")
        self.cancel_button = button("Cancel", clicked=self.cancel, enabled=False)
        self.progress = progress_bar()
        self.notice = Notice()
        corpus_field = QWidget()
        row((self.corpus_edit, 1), self.corpus_browse, owner=corpus_field)
        form = self.form = form_rows(  # two fields a row: the maps need the height
            ("Target", _pair(self.target_edit, "Instead of", self.contrast_edit)),
            ("Ablation", _pair(self.how_combo, "Corpus", corpus_field)))
        self.output_row.add_to(form)  # shown for an encoder-decoder only
        buttons = row(self.sweep_button, self.cancel_button, (self.progress, 1))
        self.dla_summary = _summary_label()
        self.dla_map = HeadMap(empty_hint="Each head's direct share of the metric shows here.")
        self.dla_map.set_axes("layer", "head")
        self.bars = LayerBars()
        self.sweep_summary = _summary_label()
        self.sweep_map = HeadMap(empty_hint=SWEEP_HINT)
        # whose ablation map this is: greyed with Run again once the text or the form changed, cleared with
        # another model, "Ablating every head…" while a sweep runs (issue 49.5)
        self.sweep_origin = ResultOriginLine(self.sweep_summary, self.sweep_map, clear=self.state.clear_sweep,
                                             run_again=self.run_sweep)
        self.sweep_map.set_axes("layer", "head")
        self.hover_line = QLabel("")
        for heatmap in (self.dla_map, self.sweep_map):
            heatmap.hovered.connect(self.hover_line.setText)
        self.results = QWidget()
        left = column(None, self.dla_summary, (self.dla_map, 1), margins=None, spacing=None)
        right = column(None, self.sweep_origin, self.sweep_summary, (self.sweep_map, 1), margins=None, spacing=None)
        flush_column(self.results, (row((left, 1), (right, 1)), 1),
                     (self.bars, 1))  # the per-layer bars under both maps, full width
        column(self, form, buttons, self.notice, (self.results, 1), self.hover_line)
        self.state.events.dla_changed.connect(self._show_dla)
        self.state.events.sweep_changed.connect(self._show_sweep)
        self.state.events.running_changed.connect(self._show_running)
        if ctx is not None:
            ctx.model_changed.connect(lambda _loaded: self._model_changed())

    # ------------------------------------------------------ host interface
    def computation(self, inputs: Inputs) -> Computation | None:
        loaded, request = inputs.loaded, self.state.dla_request(inputs.text)
        key = (inputs.model_key, inputs.text, request.target, request.contrast, request.output_position)

        def shown(result: Any) -> None:
            self._shown_key = key
            self._split_shown(result)

        if not self.state.running:
            self.sweep_origin.check(loaded, self._sweep_key(inputs.text))

        return Computation(key, lambda cancel: dla_job(loaded, request, cancel), shown,
                           label="Direct logit attribution…")

    def show_hint(self, text: str) -> None:
        self._sweep_after = False
        self.state.clear()
        self.notice.show_message(text, "info")

    def show_failure(self, message: str) -> None:
        self._sweep_after = False
        self.state.set_dla(("note", ""))
        self.notice.show_message(message, "warning")

    def _split_shown(self, result: Any) -> None:
        self.notice.clear_message()
        self.state.set_dla(result)
        if self._sweep_after:
            self._sweep_after = False
            self.run_sweep()

    # ----------------------------------------------------------------- form
    def _read_form(self) -> None:
        how = str(self.how_combo.currentData())
        self.corpus_edit.setEnabled(how != "zero")
        self.corpus_browse.setEnabled(how != "zero")
        self.state.set_inputs(self.target_edit.text(), self.contrast_edit.text(), how, self.corpus_edit.text(),
                              self.output_spin.value())
        if self.ctx is not None and not self.state.running:
            self.sweep_origin.check(self.ctx.loaded, self._sweep_key(self._text()))

    def _sweep_key(self, text: str) -> tuple:
        """What an ablation map depends on besides the model: the text and the whole form."""
        return tuple(sorted((k, repr(v)) for k, v in asdict(self.state.request(text)).items()))

    def _sweep_summary(self, text: str) -> str:
        request = self.state.request(text)
        short = text if len(text) <= 40 else text[:39] + "…"
        target = f", target “{display_label(request.target)}”" if request.target else ""
        corpus = f" over {Path(request.corpus).name}" if request.corpus and request.how != "zero" else ""
        return f"text “{short}”{target}, {request.how} ablation{corpus}"

    def browse_corpus(self, path: str | None = None) -> None:
        """Choose the ablation corpus in a file dialog (or take ``path``) and put it in the Corpus field."""
        if path is None:
            start = self.corpus_edit.text() or str(Path.home())
            path, _ = QFileDialog.getOpenFileName(self, "Corpus for mean or resample ablation", start,
                                                  "Text (*.txt *.jsonl *.tsv *.csv);;All files (*)")
            if not path:
                return
        self.corpus_edit.setText(path)

    def set_inputs(self, target: str = "", contrast: str = "", how: str = "zero", corpus: str = "",
                   output_position: int = 0) -> None:
        """Fill the form (what a user types; tests and presets call it)."""
        self.target_edit.setText(target)
        self.contrast_edit.setText(contrast)
        self.how_combo.setCurrentIndex(max(0, self.how_combo.findData(how)))
        self.corpus_edit.setText(corpus)
        self.output_row.set_quietly(output_position)  # one computation for the whole form, not one per field
        self._read_form()

    def _text(self) -> str:
        return self.ctx.current_text() if self.ctx is not None else ""

    def _ready(self) -> Any:
        """The loaded model when the sweep can start, else None (and the notice says why)."""
        loaded = self.ctx.loaded if self.ctx is not None else None
        problem = "Load a model (left) first." if loaded is None else self.state.problem(self._text(), sweep=True)
        if problem:
            self.notice.show_message(problem, "info")
            return None
        self.notice.clear_message()
        return loaded

    # ------------------------------------------------------------------ run
    def run_sweep(self) -> None:
        loaded = self._ready()
        if loaded is None:
            return
        text = self._text()
        request = self.state.request(text)
        self._task_origin = ResultOrigin.of(loaded, self._sweep_key(text), self._sweep_summary(text))
        self.sweep_origin.set_running("Ablating every head…")
        self.state.start()
        self.start_task(lambda cancel: sweep_job(loaded, request, cancel), step="sweep",
                        label="Ablating every head…")

    def _model_changed(self) -> None:
        self.cancel()
        self.state.stop()
        self.state.clear()
        self.sweep_origin.set_origin(None)
        loaded = self.ctx.loaded if self.ctx is not None else None
        if loaded is not None:  # (none yet: a workspace's position waits for its model)
            self.output_row.show_for(self.form, loaded.info.family == "encoder-decoder")
            self._read_form()

    # ------------------------------------------------------------- showing
    def _show_running(self, running: bool) -> None:
        self.sweep_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        self.sweep_map.empty_hint = SWEEP_RUNNING_HINT if running else SWEEP_HINT  # never "Press…" while it ablates
        self.sweep_map.update()

    def _show_dla(self) -> None:
        dla = self.state.dla
        if dla is None:
            self.dla_map.set_matrix(None)
            self.bars.clear()
            self.dla_summary.setText(f"<b>{html.escape(self.state.dla_note)}</b>" if self.state.dla_note else "")
            return
        metric = _metric_name(dla.target, dla.contrast)
        self.dla_summary.setText(
            f"Direct logit attribution of {metric} at token {dla.position}: the model gives <b>{dla.total:.3f}</b>; "
            f"the parts sum to <b>{dla.parts_sum:.3f}</b> (embeddings {dla.embed:+.3f}, biases {dla.bias:+.3f}); "
            f"residual (approximation gap) <b>{dla.approximation_gap:+.2e}</b>. Read through the final norm with its "
            f"scale frozen at this run's (σ = {dla.norm_scale:.4g})."
            + (f"<br>{html.escape(read_line(dla.notes))}" if read_line(dla.notes) else ""))
        self.dla_map.set_matrix(np.array(dla.attn, dtype=np.float64), _row_labels(dla.rows),
                                [str(h) for h in range(dla.heads)],
                                title=f"each head's direct share of {metric} (rows: layers, columns: heads)",
                                signed=True)
        self.bars.show_dla(dla)

    def _show_sweep(self) -> None:
        sweep = self.state.sweep
        if sweep is None:
            self.sweep_map.set_matrix(None)
            self.sweep_summary.setText("")
            return
        metric = _metric_name(sweep.target, sweep.contrast)
        corpus = f", over {sweep.corpus_tokens} corpus tokens" if sweep.corpus_tokens else ""
        self.sweep_summary.setText(
            f"{metric}: clean <b>{sweep.clean_metric:.3f}</b>. Each cell: the metric with that head ablated "
            f"({sweep.how}{corpus}) minus the clean one; {self.state.rows_done()} of {self.state.rows_total} rows "
            "done." + "".join(f"<br>{html.escape(line)}" for line in _sweep_notes(sweep.notes)))
        self.sweep_map.set_matrix(np.array(self.state.change(), dtype=np.float64), _row_labels(sweep.rows),
                                  [str(h) for h in range(sweep.heads)],
                                  title=f"change of {metric} with the head ablated (rows: layers, columns: heads)",
                                  signed=True)

    # ------------------------------------------------------------ abilities
    def export_widget(self) -> QWidget:
        return self.results

    def apply_preset_step(self, settings: dict, inputs: dict) -> None:
        """A lecture step or a workspace: the form (``target``, ``contrast``, ``how``, ``corpus``, an
        encoder-decoder's ``output_position``; the split follows for the step's text) and ``ablate`` (true: ablate every head once the split is shown)."""
        s = self.state
        if "how" in settings and settings["how"] not in HOWS:
            raise ValueError(f"how must be one of {', '.join(HOWS)}, not {settings['how']!r}")
        self.set_inputs(settings.get("target", s.target), settings.get("contrast", s.contrast),
                        settings.get("how", s.how), settings.get("corpus", s.corpus),
                        int(settings.get("output_position", 0)))
        loaded = self.ctx.loaded if self.ctx is not None else None
        request = self.state.dla_request(self._text())
        key = ((id(loaded), loaded.info.spec) if loaded is not None else None, request.text, request.target,
               request.contrast, request.output_position)
        if settings.get("ablate") and key == self._shown_key:  # the split shown is this one's: no new one comes
            self.run_sweep()
            return
        self._sweep_after = bool(settings.get("ablate"))
        self.inputs_changed.emit()

    def preset_state(self) -> tuple[dict, dict]:
        """The form, and ``ablate`` when a whole sweep is shown (a recorded step or a reopened workspace runs it
        again, as Predictions' ``explain`` does)."""
        shown = self.state.sweep is not None and not self.state.running and \
            self.state.rows_done() == self.state.rows_total
        return self.state.to_settings() | ({"ablate": True} if shown else {}), {}

    def shutdown(self) -> None:
        self.cancel()


def _pair(first: QWidget, caption: str, second: QWidget) -> QWidget:
    """Two fields on one form row, the second with its own label."""
    both = QWidget()
    row((first, 1), QLabel(caption), (second, 1), owner=both)
    return both


def _summary_label() -> QLabel:
    summary = label("", name="summary", wrap=True)
    summary.setTextFormat(Qt.TextFormat.RichText)
    return summary
