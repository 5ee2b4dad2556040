"""The Patching tab: activation patching (causal tracing) as a layers × tokens heatmap.

The form writes a ``lm_workbench.patching.state.PatchingState``; Run starts ``lm_workbench.patching.view_tasks.patching_sweep``
(the engine's ``patching_job``) through the view's jobs (progress, Cancel), and each layer's
``Partial`` fills the heatmap's next row as it comes. The heatmap (``lm_workbench.ui.widgets.heatmap.HeatmapView``, signed:
the diverging colormap) and the clean and corrupted predictions above it are what File ▸ Export saves.

"Fast (gradient)" runs attribution patching instead (``lm_workbench.patching.view_tasks.attribution_sweep``: one forward
and one backward pass) and shows its approximate heatmap; "Refine exactly" then runs the exact sweep and the line
under the heatmap gives the two matrices' correlation and their 5 largest disagreements.

The site chooser lists the loaded model's sites: an encoder-decoder (BART, T5) has the decoder's ``resid``, ``attn``,
``cross-attn`` and ``mlp`` and the encoder's ``enc-resid``, ``enc-attn`` and ``enc-mlp``, and an "Output position" row
(shown for encoder-decoders only) picks the decoder's output token whose metric is read; the heatmap's columns
are then the decoder's tokens or the encoder's, as the site's are.
"""

from __future__ import annotations

import html
from typing import Any

import numpy as np
from PySide6.QtWidgets import QCheckBox, QLabel, QWidget

from lm_workbench.engine.patching.names import ALL_SITES
from lm_workbench.ui.view_kit.view_context import ViewContext
from lm_workbench.ui.widgets.boxes import column, flush_column, form_rows, row
from lm_workbench.ui.widgets.controls import button, combo_box, label, line_edit, progress_bar
from lm_workbench.ui.widgets.heatmap import HeatmapView
from lm_workbench.ui.widgets.notice import Notice
from lm_workbench.reading import read_line
from lm_workbench.ui.widgets.token_layout import display_label
from lm_workbench.ui.view_kit.output_position import OutputPositionRow
from lm_workbench.ui.view_kit.scroll_into_view import scroll_into_view
from lm_workbench.ui.view_kit.result_origin_line import ResultOriginLine
from lm_workbench.result_origin import ResultOrigin
from lm_workbench.ui.view_kit.computing_view import ComputingView
from lm_workbench.patching.state import CORRUPT_BY, PatchingState, settings_in_new_form
from lm_workbench.patching.view_tasks import attribution_sweep, patching_sweep

SITE_NAMES = {"resid": "resid: a block's output", "attn": "attn: its attention's output",
              "mlp": "mlp: its MLP's output"}
ENCODER_DECODER_SITE_NAMES = {  # an encoder-decoder's sites, the decoder's first (the metric is read there)
    "resid": "resid: a decoder block's output", "attn": "attn: its self-attention's output",
    "cross-attn": "cross-attn: its cross-attention's output", "mlp": "mlp: its MLP's output",
    "enc-resid": "enc-resid: an encoder block's output", "enc-attn": "enc-attn: its self-attention's output",
    "enc-mlp": "enc-mlp: its MLP's output"}


def _noise_line(noise: Any) -> str:
    """How a noised corrupted run was made, for the summary ("" for a second text)."""
    if noise is None:
        return ""
    return (f" Corrupted by noise on <b>{html.escape(noise.subject)}</b> (tokens "
            f"{', '.join(map(str, noise.positions))}): std {noise.scale:g} × {noise.sigma:.4f}, the metric the mean "
            f"of {noise.samples} draws (seed {noise.seed}).")


RUN_HINT = "Press Run: the recovered fraction of every layer and token shows here."
RUNNING_HINT = "Patching: each layer's row shows here as it is done."


class PatchingView(ComputingView, QWidget):
    task_what, task_unit, task_done_count = "Patching", "layer", "layers_done"
    preset_settings = frozenset({"clean", "corrupt", "target", "contrast", "answer", "wrong", "site", "run",
                                 "corrupt_by", "subject", "fast", "output_position"})

    def __init__(self, ctx: ViewContext | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctx = ctx
        self.state = PatchingState()
        self.clean_edit = line_edit("The Eiffel Tower is in the city of")
        self.corrupt_edit = line_edit("The Colosseum is in the city of (as many tokens)")
        self.corrupt_by_combo = combo_box(
            [("a second text", "text"), ("noise on the subject (ROME)", "noise")],
            tip="The corrupted run: a second text of as many tokens, or the clean text with Gaussian noise (3 × the "
                "embeddings' std, mean of 10 draws) added to the subject's word embeddings, as Meng et al. 2022 do")
        self.subject_edit = line_edit("words of the clean text to noise, e.g. Eiffel Tower")
        self.answer_edit = line_edit("one vocabulary token, e.g. ĠParis or  Paris")
        self.wrong_edit = line_edit("optional: logit(answer) − logit(wrong)")
        self.site_combo = combo_box()
        self._wanted_site: str | None = None  # a site set (a workspace, a preset) before a model that has it loaded
        self._fill_sites()
        self.output_row = OutputPositionRow(
            "The decoder's output token whose metric is read (0: the first), after the model's own greedy output "
            "before it; the corrupted run decodes that same output, so only the encoder's input differs")
        self.output_spin = self.output_row.spin
        self.output_spin.valueChanged.connect(self._read_form)
        for edit in (self.clean_edit, self.corrupt_edit, self.subject_edit, self.answer_edit, self.wrong_edit):
            edit.textChanged.connect(self._read_form)
            edit.returnPressed.connect(self.run)
        self.site_combo.currentIndexChanged.connect(self._read_form)
        self.site_combo.activated.connect(self._site_chosen)
        self.corrupt_by_combo.currentIndexChanged.connect(self._read_form)
        self.subject_edit.setEnabled(False)  # until "noise on the subject" is chosen
        self.fast_check = QCheckBox("Fast (gradient)")
        self.fast_check.setToolTip("Attribution patching: (clean − corrupted activation) · the metric's gradient at "
                                   "the corrupted run, every layer and token from one forward and one backward "
                                   "pass; an approximation of the exact sweep (Refine exactly compares them)")
        self.fast_check.toggled.connect(self._read_form)
        self.run_button = button("Run", clicked=self.run)
        self.refine_button = button("Refine exactly", clicked=self.refine, enabled=False,
                                    tip="Run the exact sweep for the same inputs and compare it with the fast one")
        self.cancel_button = button("Cancel", clicked=self.cancel, enabled=False)
        self.progress = progress_bar()
        self.notice = Notice()
        form = form_rows(("Clean text", self.clean_edit), ("Corrupt by", self.corrupt_by_combo),
                         ("Corrupted text", self.corrupt_edit), ("Subject", self.subject_edit),
                         ("Answer", self.answer_edit), ("Wrong token", self.wrong_edit), ("Site", self.site_combo))
        self.output_row.add_to(form)  # encoder-decoders only (``_show_family``)
        self.form = form
        buttons = row(self.fast_check, self.run_button, self.refine_button, self.cancel_button, (self.progress, 1))
        self.results = QWidget()
        self.summary = label("", name="summary", wrap=True)
        self.heatmap = HeatmapView(empty_hint=RUN_HINT)
        self.heatmap.set_axes("layer", "token")
        self.hover_line = QLabel("")
        self.heatmap.hovered.connect(self.hover_line.setText)
        self.comparison_line = label("", name="comparison", wrap=True)
        flush_column(self.results, self.summary, (self.heatmap, 1), self.comparison_line)
        # whose map this is: greyed with Run again once the form changed, cleared with another model (issue 49.5)
        self.origin_line = ResultOriginLine(self.summary, self.heatmap, self.comparison_line,
                                            clear=self.state.clear, run_again=self.run)
        self._task_origin: ResultOrigin | None = None  # the origin of the run under way or last run
        column(self, form, buttons, self.notice, self.origin_line, (self.results, 1))
        self.state.events.result_changed.connect(self._show_result)
        self.state.events.running_changed.connect(self._show_running)
        if ctx is not None:
            ctx.model_changed.connect(lambda _loaded: self._model_changed())
            self._show_family()

    # ----------------------------------------------------------------- form
    def _fill_sites(self) -> None:
        """The site chooser lists the sites the state's model has, keeping the chosen one where it can."""
        names = ENCODER_DECODER_SITE_NAMES if self.state.encoder_decoder else SITE_NAMES
        order = [s for s in names if s in self.state.sites] + [s for s in self.state.sites if s not in names]
        self.site_combo.blockSignals(True)
        self.site_combo.clear()
        for site in order:
            self.site_combo.addItem(names.get(site, site), site)
        self.site_combo.setCurrentIndex(max(0, self.site_combo.findData(self.state.site)))
        self.site_combo.blockSignals(False)

    def _show_family(self) -> None:
        """The loaded model's sites in the chooser; the output position row for an encoder-decoder only."""
        loaded = self.ctx.loaded if self.ctx is not None else None
        self.state.set_family(None if loaded is None else getattr(loaded.family, "value", None))
        if self._wanted_site in self.state.sites:  # e.g. a workspace's cross-attn, now that its BART has loaded
            self.state.site, self._wanted_site = self._wanted_site, None
        self._fill_sites()
        self.output_row.show_for(self.form, self.state.encoder_decoder)
        self._read_form()

    def _site_chosen(self) -> None:
        """The user picked a site: no earlier wish waits for another model."""
        self._wanted_site = None

    def _read_form(self) -> None:
        noise = self.corrupt_by_combo.currentData() == "noise"
        self.corrupt_edit.setEnabled(not noise)
        self.subject_edit.setEnabled(noise)
        self.state.set_inputs(self.clean_edit.text(), self.corrupt_edit.text(), self.answer_edit.text(),
                              self.wrong_edit.text(), str(self.site_combo.currentData()),
                              str(self.corrupt_by_combo.currentData()), self.subject_edit.text(),
                              self.fast_check.isChecked(), self.output_spin.value())
        self.refine_button.setEnabled(self.state.can_refine())
        if self.ctx is not None and not self.state.running:
            self.origin_line.check(self.ctx.loaded, self._key())

    def _key(self) -> tuple:
        """What a patching map depends on besides the model: the whole form (Fast included)."""
        return tuple(sorted((k, repr(v)) for k, v in self.state.request().to_dict().items())) + (
            ("fast", self.state.fast),)

    def _summary(self) -> str:
        st = self.state
        clean = st.clean if len(st.clean) <= 40 else st.clean[:39] + "…"
        return (f"clean “{clean}”, answer “{display_label(st.target)}”, site {st.site}"
                + (", fast" if st.fast else ""))

    def set_inputs(self, clean: str, corrupt: str, answer: str, wrong: str = "", site: str = "resid",
                   corrupt_by: str = "text", subject: str = "", fast: bool | None = None,
                   output_position: int | None = None) -> None:
        """Fill the form (what a user types; tests and presets call it); a site the loaded model lacks leaves the
        chooser where it is."""
        self.clean_edit.setText(clean)
        self.corrupt_edit.setText(corrupt)
        self.subject_edit.setText(subject)
        self.corrupt_by_combo.setCurrentIndex(max(0, self.corrupt_by_combo.findData(corrupt_by)))
        self.answer_edit.setText(answer)
        self.wrong_edit.setText(wrong)
        index = self.site_combo.findData(site)
        self._wanted_site = site if index < 0 else None  # chosen once a model that has it loads
        self.site_combo.setCurrentIndex(max(0, index))
        if fast is not None:
            self.fast_check.setChecked(fast)
        if output_position is not None:
            self.output_spin.setValue(output_position)
        self._read_form()

    # ------------------------------------------------------------------ run
    def run(self) -> None:
        """Run: the exact sweep, or with "Fast (gradient)" attribution patching."""
        self._start("attribution" if self.state.fast else "exact")

    def refine(self) -> None:
        """Refine exactly: the exact sweep of the same inputs, compared with the approximate result when done."""
        self._start("exact")

    def _start(self, method: str) -> None:
        loaded = self.ctx.loaded if self.ctx is not None else None
        problem = ("Load a decoder, a masked LM or an encoder-decoder (left) first." if loaded is None
                   else self.state.problem())
        if problem:
            self.notice.show_message(problem, "info")
            return
        self.notice.clear_message()
        request = self.state.request()
        self._task_origin = ResultOrigin.of(loaded, self._key(), self._summary())
        self.origin_line.set_running("Attribution patching…" if method == "attribution"
                                     else "Patching every layer and token…")
        self.state.start(method)
        fast = method == "attribution"
        sweep = attribution_sweep if fast else patching_sweep
        status = ("Attribution patching: one forward and one backward pass…" if fast
                  else "Patching every layer and token…")
        self.start_task(lambda cancel: sweep(loaded, request, cancel), step="patching", label=status)

    def _model_changed(self) -> None:
        self.cancel()
        self.state.stop()
        self.state.clear()
        self.origin_line.set_origin(None)
        self._show_family()
        self.refine_button.setEnabled(self.state.can_refine())

    # ------------------------------------------------------------- showing
    def _show_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        self.heatmap.empty_hint = RUNNING_HINT if running else RUN_HINT  # never "Press Run" while it runs
        self.heatmap.update()
        self.refine_button.setEnabled(self.state.can_refine())

    def _show_result(self) -> None:
        result = self.state.result
        if result is None:
            self.heatmap.set_matrix(None)
            self.summary.setText("")
            self.comparison_line.setText("")
            return
        def shown(token: str) -> str:
            return html.escape(display_label(token))

        metric = f"logit({shown(result.answer)})" + (f" − logit({shown(result.wrong)})" if result.wrong else "")
        approximate = self.state.method == "attribution"
        what = ("approximate recovered fraction (attribution patching: (clean − corrupted) · gradient)"
                if approximate else "recovered fraction")
        self.comparison_line.setText(self._comparison_text())
        columns = getattr(result, "columns", None)  # an encoder-decoder's: "encoder" or "decoder" tokens
        where = (f"token {result.position}" if columns is None else
                 f"output position {result.position} (the decoder reads "
                 f"{' '.join(shown(t) for t in result.decoder_tokens)})")
        self.summary.setText(
            f"Metric {metric} at {where}: clean <b>{result.clean_metric:.3f}</b> (predicts "
            f"<b>{shown(result.clean_prediction)}</b>), corrupted <b>{result.corrupt_metric:.3f}</b> (predicts "
            f"<b>{shown(result.corrupt_prediction)}</b>). Cells: the {what}, site {result.site}; "
            + (f"{self.state.layers_done()} of {self.state.layers_total} layers done." if not approximate else
               "one forward and one backward pass (Refine exactly runs the exact sweep).")
            + _noise_line(result.noise)
            # on a line of its own, in bold: a weak contrast makes every cell below doubtful
            + (f"<br><b>{html.escape(result.note[0].upper() + result.note[1:])}.</b>" if result.note else "")
            + (f"<br>{html.escape(read_line(result.notes))}" if read_line(getattr(result, "notes", None)) else ""))
        stack = "" if columns is None else f"{columns} "
        self.heatmap.set_axes(f"{stack}layer", f"{stack}token")
        self.heatmap.set_matrix(np.array(self.state.matrix(), dtype=np.float64),
                                [f"layer {layer}" for layer in result.layers], result.tokens,
                                title=f"{'approximate ' if approximate else ''}recovered fraction of {metric} "
                                      f"(rows: {stack}layers, columns: "
                                      + ("clean tokens)" if columns is None else
                                         "the clean encoder input's tokens)" if columns == "encoder" else
                                         "the decoder's tokens, the same in both runs)"),
                                signed=True)
        if self.state.layers_done() == 1:  # the first row: show the heatmap (below the fold at 1280 x 720 with F5)
            scroll_into_view(self.heatmap)

    def _comparison_text(self) -> str:
        """The line under the heatmap after Refine exactly: correlation and the largest disagreements."""
        c = self.state.comparison
        if c is None:
            return ""
        r = "undefined (a matrix without spread)" if c.pearson is None else f"{c.pearson:.3f}"
        worst = "; ".join(f"layer {d.layer}, {html.escape(display_label(d.token))} (token {d.position}): "
                          f"{d.approximate:.3f} vs {d.exact:.3f}" for d in c.disagreements)
        return f"Exact vs fast (gradient): Pearson r = {r}. Largest disagreements (fast vs exact): {worst}."

    # ------------------------------------------------------------ abilities
    def export_widget(self) -> QWidget:
        return self.results

    def apply_preset_step(self, settings: dict, inputs: dict) -> None:
        """A lecture step or a workspace: the form (``clean``, ``corrupt``, ``target``, ``contrast`` (older presets:
        ``answer``, ``wrong``), ``site``;
        ``corrupt_by`` "noise" and ``subject`` for ROME's noise instead of a second text; ``fast`` true: attribution
        patching, absent: the exact sweep) and ``run`` (true:
        start the sweep now, on the loaded model)."""
        s, settings = self.state, settings_in_new_form(settings)  # the old answer/wrong keys read as target/contrast
        if "site" in settings and settings["site"] not in ALL_SITES:
            raise ValueError(f"site must be one of {', '.join(ALL_SITES)}, not {settings['site']!r}")
        if "corrupt_by" in settings and settings["corrupt_by"] not in CORRUPT_BY:
            raise ValueError(f"corrupt_by must be one of {', '.join(CORRUPT_BY)}, not {settings['corrupt_by']!r}")
        self.set_inputs(settings.get("clean", s.clean), settings.get("corrupt", s.corrupt),
                        settings.get("target", s.target), settings.get("contrast", s.contrast),
                        settings.get("site", s.site),
                        settings.get("corrupt_by", s.corrupt_by), settings.get("subject", s.subject),
                        bool(settings.get("fast", False)),  # a step without ``fast``: the exact sweep
                        int(settings.get("output_position", 0)))
        if settings.get("run"):
            self.run()

    def preset_state(self) -> tuple[dict, dict]:
        return self.state.to_settings(), {}

    def shutdown(self) -> None:
        self.cancel()
