"""The Probing tab: choose a task (or the demo), run the sweeps off the Qt thread, watch layers arrive.

One Run does what is ticked: the probing sweep (every layer's vectors
extracted once, then every layer's task and control probes), then the STS
sweep. Both go through ``ctx.jobs`` with progress, Cancel and a partial
result per layer, which the plots draw as it comes. What the tab shows lives
in a ``lm_workbench.probing.state.ProbingState``; each finished sweep is stored
as a run (kinds ``probe`` and ``sts``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from PySide6.QtWidgets import QCheckBox, QComboBox, QLabel, QWidget

from lm_workbench.engine.embeddings.names import SENTENCE_POOLINGS
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.probing.names import KINDS
from lm_workbench.engine.progress import Progress
from lm_workbench.ui.widgets.dataset_picker import choose_cached_dataset, display_name
from lm_workbench.ui.probing.layer_plots import LayerPlots
from lm_workbench.ui.widgets.boxes import column
from lm_workbench.ui.widgets.controls import button, combo_box, label, progress_bar, spin_box
from lm_workbench.ui.widgets.file_choice import file_or_ask
from lm_workbench.ui.widgets.fold import FlowLayout, labelled
from lm_workbench.ui.widgets.view_export import export_button, export_view_picture, export_view_table
from lm_workbench.probing.state import DEMO, ProbingState
from lm_workbench.result_origin import ResultOrigin
from lm_workbench.ui.view_kit.computing_view import ComputingView
from lm_workbench.ui.view_kit.result_origin_line import ResultOriginLine

TASK_DEMO = "Demo: Universal POS tags (400 sentences)"
STS_DEMO = "Demo: 66 scored sentence pairs"
CHOOSE = "Choose a file…"
FROM_CACHE = "From the datasets cache…"


class ProbingView(ComputingView, QWidget):
    def __init__(self, ctx: Any, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctx = ctx
        self.state = ProbingState()
        self._mix_label = ""

        self.task_combo = combo_box([TASK_DEMO, CHOOSE, FROM_CACHE], tip="A CoNLL / CoNLL-U file (token task) or a "
                                    "CSV/TSV with text and label (sentence task)")
        self.kind_combo = combo_box(list(KINDS), tip="token: a tag per word; sentence: a label per text")
        self.pooling_combo = combo_box(list(SENTENCE_POOLINGS), tip="Sentence vectors: mean of the tokens, the first "
                                       "token, or the model's own declared pooling")
        self.sts_combo = combo_box([STS_DEMO, CHOOSE, FROM_CACHE], tip="A CSV/TSV with sentence1, sentence2 and score")
        self.probe_check = QCheckBox("Probe")
        self.probe_check.setChecked(True)
        self.sts_check = QCheckBox("STS")
        self.sts_check.setChecked(True)
        self.mix_check = QCheckBox("Scalar mix")
        self.mix_check.setToolTip("Also learn ELMo's scalar mix of the layers for the task (softmax weights and "
                                  "gamma, with a linear classifier) and chart the weights with the expected layer")
        self.mix_steps = spin_box(1, 100_000, 200, prefix="steps ", tip="Training steps of the scalar mix")
        self.run_button = button("Run", tip="Extract every layer once, fit every layer's probes in parallel, then "
                                 "score STS", clicked=lambda: self.run())
        self.cancel_button = button("Cancel", clicked=self.cancel, enabled=False)
        self.export_button = export_button(self, ("Plots as PNG or SVG…", lambda: self.export_picture()),
                                           ("Numbers per layer (CSV)…", lambda: self.export_table()))
        self.progress = progress_bar()
        self.summary = label("Choose a task (or keep the demo) and press Run: it probes the loaded model, layer by "
                             "layer.", name="summary", wrap=True)
        self.plots = LayerPlots()

        row = FlowLayout()  # wraps to the width (presentation mode on a small screen)
        for caption, widget in (("Task", self.task_combo), ("Kind", self.kind_combo),
                                ("Pooling", self.pooling_combo), ("STS data", self.sts_combo)):
            row.addWidget(labelled(QLabel(caption), widget))
        buttons = FlowLayout()
        for widget in (self.probe_check, self.sts_check, self.mix_check, self.mix_steps, self.run_button,
                       self.cancel_button, self.export_button, self.progress):
            buttons.addWidget(widget)
        # whose per-layer numbers these are: greyed with Run again when the task, kind, pooling or STS data
        # changed, cleared with another model (issue 49.5)
        self.origin_line = ResultOriginLine(self.plots, clear=self.state.clear_results, run_again=lambda: self.run())
        column(self, row, buttons, self.summary, self.origin_line, (self.plots, 1), margins=None, spacing=None)

        self.task_combo.activated.connect(self._task_activated)
        self.sts_combo.activated.connect(self._sts_activated)
        self.kind_combo.currentTextChanged.connect(self.state.set_kind)
        self.pooling_combo.currentTextChanged.connect(self.state.set_pooling)
        self.state.events.probe_changed.connect(lambda: self.plots.show_probe(self.state))
        self.state.events.sts_changed.connect(lambda: self.plots.show_sts(self.state))
        self.state.events.mix_changed.connect(lambda: self.plots.show_mix(self.state))
        self.state.events.choices_changed.connect(self._sync_choices)
        self.state.events.choices_changed.connect(self._check_origin)
        self.ctx.model_changed.connect(lambda _loaded: self._check_origin())
        self.ctx.model_changed.connect(lambda _loaded: self.run_if_ready())

    def _key(self) -> tuple:
        st = self.state
        return st.task, st.kind, st.pooling, st.sts_data

    def _check_origin(self) -> None:
        self.origin_line.check(self.ctx.loaded, self._key())

    # -- choices ---------------------------------------------------------------------------------------
    def choose_task_file(self, path: str | None = None, kind: str | None = None) -> None:
        """Use ``path`` as the task (asks with a file dialog when None); its kind is guessed from the suffix."""
        path = file_or_ask(self, path, "Probing task", "Tasks (*.conllu *.conll *.txt *.csv *.tsv);;All files (*)",
                           on_cancel=self._sync_choices)
        if path is None:
            return
        if kind is None:
            kind = "sentence" if Path(path).suffix.lower() in (".csv", ".tsv") else "token"
        self.state.set_task(path, kind)

    def choose_sts_file(self, path: str | None = None) -> None:
        path = file_or_ask(self, path, "STS pairs", "Tables (*.csv *.tsv);;All files (*)", on_cancel=self._sync_choices)
        if path is not None:
            self.state.set_sts_data(path)

    def _task_activated(self, index: int) -> None:
        if self.task_combo.itemText(index) == TASK_DEMO:
            self.state.set_task(DEMO, "token")
        elif self.task_combo.itemText(index) == CHOOSE:
            self.choose_task_file()
        elif self.task_combo.itemText(index) == FROM_CACHE:
            self._from_cache(lambda ref: self.state.set_task(ref, "sentence"))

    def _sts_activated(self, index: int) -> None:
        if self.sts_combo.itemText(index) == STS_DEMO:
            self.state.set_sts_data(DEMO)
        elif self.sts_combo.itemText(index) == CHOOSE:
            self.choose_sts_file()
        elif self.sts_combo.itemText(index) == FROM_CACHE:
            self._from_cache(self.state.set_sts_data)

    def _from_cache(self, use: Callable[[str], None]) -> None:
        """A split from the datasets cache as the (sentence) task or the STS pairs."""
        reference = choose_cached_dataset(self)
        if reference:
            use(reference)
        else:
            self._sync_choices()

    @staticmethod
    def _show_choice(combo: QComboBox, demo: str, value: str) -> None:
        if value == DEMO:
            combo.setCurrentIndex(combo.findText(demo))
            return
        index = combo.findData(value)
        if index < 0:
            combo.insertItem(combo.findText(CHOOSE), display_name(value), value)
            index = combo.findData(value)
        combo.setCurrentIndex(index)

    def _sync_choices(self) -> None:
        self._show_choice(self.task_combo, TASK_DEMO, self.state.task)
        self._show_choice(self.sts_combo, STS_DEMO, self.state.sts_data)
        for combo, value in ((self.kind_combo, self.state.kind), (self.pooling_combo, self.state.pooling)):
            if combo.currentText() != value:
                combo.setCurrentText(value)
        self.kind_combo.setEnabled(self.state.task != DEMO)

    # -- running ---------------------------------------------------------------------------------------
    def run(self, reuse: bool = False) -> None:
        """Probe every layer (and STS, the scalar mix, as ticked) on the loaded model, each recorded as a run.
        ``reuse`` (a lecture step or guide page that starts the run): a probe or STS sweep or a scalar mix recorded
        before for the same model, settings and data is shown from the store, not computed or recorded again."""
        loaded = self.ctx.loaded
        if loaded is None:
            self.ctx.show_message("Load a model first: probing runs on the loaded model.", "info")
            return
        if not (self.probe_check.isChecked() or self.sts_check.isChecked() or self.mix_check.isChecked()):
            self.ctx.show_message("Tick Probe, STS, Scalar mix or several.", "info")
            return
        from lm_workbench.probing.runs import ProbeRun, StsRun
        from lm_workbench.probing.scalar_mix_runs import ScalarMixRun
        from lm_workbench.probing.spec import ScalarMixSpec
        from lm_workbench.runs.execute import execute_each

        model = self.ctx.model_spec()
        runs: dict[str, Any] = {}  # run in this order; the scalar mix's partial results are its weights so far
        try:
            if self.mix_check.isChecked():
                probe = self.state.probe_params(model)
                runs["mix"] = ScalarMixRun(ScalarMixSpec(**probe.to_dict(), steps=self.mix_steps.value()).checked())
            if self.probe_check.isChecked():
                runs["probe"] = ProbeRun(self.state.probe_params(model))
            if self.sts_check.isChecked():
                runs["sts"] = StsRun(self.state.sts_params(model))
        except WorkbenchError as exc:
            self.ctx.show_message(str(exc), "warning")
            return
        if "probe" in runs:
            self.state.clear_probe()
        if "sts" in runs:
            self.state.clear_sts()
        self.summary.setText("Running…")
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self._mix_label = self.state.task_label()
        self._origin = ResultOrigin.of(loaded, self._key(), f"task {self._mix_label}, "
                                       "STS data " + ("the demo pairs" if self.state.sts_data == DEMO
                                                         else display_name(self.state.sts_data)))
        self.origin_line.set_running("Probing every layer…")
        self.start_task(execute_each(runs, loaded, self.ctx.run_services.path, reuse=reuse), step="sweep",
                        label="Probing layers…")

    def _progress(self, report: Progress) -> None:
        self.progress.setRange(0, max(1, report.total))
        self.progress.setValue(report.done)
        if report.message:
            self.progress.setFormat(report.message)

    def _partial(self, value: Any) -> None:
        from lm_workbench.probing.for_views import LayerResult, StsLayer

        if isinstance(value, list):  # the scalar mix's weights so far
            self.state.set_mix(self._mix_label, value)
        elif isinstance(value, LayerResult):
            self.state.add_probe_layer(value.layer, value.accuracy, value.control_accuracy)
        elif isinstance(value, StsLayer):
            self.state.add_sts_layer(value.layer, value.spearman)

    def _idle(self, text: str) -> None:
        self.origin_line.set_origin(getattr(self, "_origin", None))
        self.progress.setFormat("%p%")
        self.run_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self.summary.setText(text)

    def _done(self, out: dict) -> None:
        parts = []
        if "mix" in out:
            learned, run_id = out["mix"]
            self.state.set_mix(self._mix_label, learned.result.weights, run_id)
            parts.append(f"Scalar mix: expected layer {learned.result.expected_layer:.2f}, held-out accuracy "
                         f"{learned.result.accuracy:.1%}; {_run_said(learned, run_id)}")
        if "probe" in out:
            result, run_id = out["probe"]
            self.state.finish_probe(result, run_id)
            best = max(range(len(result.layers)), key=lambda i: result.selectivity[i])
            parts.append(f"Most selective layer {result.layers[best]} (accuracy {result.accuracy[best]:.1%}, "
                         f"control {result.control_accuracy[best]:.1%}; majority class {result.majority:.1%}; "
                         f"{result.rows_scored:,} held-out rows scored); {_run_said(result, run_id)}")
            parts += _read_line("Task file", result) + list(getattr(result, "notes", []))
        if "sts" in out:
            result, run_id = out["sts"]
            self.state.finish_sts(result, run_id)
            finite = [(r, k) for k, r in zip(result.layers, result.spearman) if r is not None and r == r]
            if finite:
                rho, layer = max(finite)
                parts.append(f"STS: best Spearman {rho:.3f} at layer {layer} ({result.pairs} pairs); "
                             f"{_run_said(result, run_id)}")
            parts += self.state.sts_undefined_lines()
            parts += _read_line("STS file", result)
        self._idle(". ".join(parts) + ".")

    def _failed(self, exc: BaseException, tb: str) -> None:
        self._idle("The sweep failed.")
        if isinstance(exc, WorkbenchError):
            self.ctx.show_message(str(exc), "warning")
        else:
            self.ctx.show_error(exc, tb)

    def _cancelled(self) -> None:
        self._idle("Cancelled; the layers done so far are shown.")

    # the task's hooks (ComputingView): this view's own handlers
    on_task_progress, on_partial_result, on_done = _progress, _partial, _done
    on_exception, on_cancelled = _failed, _cancelled

    # -- presets and workspaces ------------------------------------------------------------------------
    # what a lecture step or a workspace may set here (apply_preset_step takes them, preset_state reports them)
    preset_settings = frozenset({"task", "kind", "pooling", "sts_data", "probe", "sts",
                                 "mix", "mix_steps", "run", "results"})

    def apply_preset_step(self, settings: dict[str, Any], inputs: dict[str, Any]) -> None:
        """A lecture step or a workspace: ``task`` ("demo" or a file) and ``kind``, ``pooling``, ``sts_data``,
        what to run (``probe``, ``sts``, ``mix`` and ``mix_steps``), ``results`` (per-layer numbers and mix
        weights shown before) and ``run`` (start now, on the loaded model)."""
        st = self.state
        if "task" in settings:
            st.set_task(str(settings["task"]), settings.get("kind"))
        elif "kind" in settings:
            st.set_kind(settings["kind"])
        if "pooling" in settings:
            st.set_pooling(settings["pooling"])
        if "sts_data" in settings:
            st.set_sts_data(str(settings["sts_data"]))
        for key, check in (("probe", self.probe_check), ("sts", self.sts_check), ("mix", self.mix_check)):
            if key in settings:
                check.setChecked(bool(settings[key]))
        if "mix_steps" in settings:
            self.mix_steps.setValue(int(settings["mix_steps"]))
        results = settings.get("results")
        if results:
            st.probe_layers = {int(k): tuple(v) for k, v in results.get("probe_layers", {}).items()}
            st.majority = results.get("majority")
            st.sts_layers = {int(k): None if v is None else float(v) for k, v in results.get("sts_layers", {}).items()}
            st.mixes = {k: [float(w) for w in v] for k, v in results.get("mixes", {}).items()}
            for event in (st.events.probe_changed, st.events.sts_changed, st.events.mix_changed):
                event.emit()
        if settings.get("run"):
            self._run_when_loaded = True
            self.run_if_ready()

    def run_if_ready(self) -> None:
        """Start the run a preset step asked for, once a model is loaded (at once when one is)."""
        if getattr(self, "_run_when_loaded", False) and self.ctx.loaded is not None:
            self._run_when_loaded = False
            self.cancel()
            self.run(reuse=True)

    def preset_state(self) -> tuple[dict[str, Any], dict[str, Any]]:
        st = self.state
        return {"task": st.task, "kind": st.kind, "pooling": st.pooling, "sts_data": st.sts_data,
                "probe": self.probe_check.isChecked(), "sts": self.sts_check.isChecked(),
                "mix": self.mix_check.isChecked(), "mix_steps": self.mix_steps.value(),
                "results": {"probe_layers": {str(k): list(v) for k, v in st.probe_layers.items()},
                            "majority": st.majority, "sts_layers": {str(k): v for k, v in st.sts_layers.items()},
                            "mixes": st.mixes}}, {}

    # -- export ----------------------------------------------------------------------------------------
    def export_picture(self, path: str | Path | None = None) -> Path | None:
        return export_view_picture(self.ctx, self, self.plots, "probing", path)

    def export_table(self, path: str | Path | None = None) -> Path | None:
        return export_view_table(self.ctx, self, self.state.table(), "probing", path, "Export numbers per layer",
                                 "Nothing to export yet: run a sweep first.")


def _read_line(what: str, result: Any) -> list[str]:
    """``Task file: read 1,498 rows, skipped 2 (first: line 17: ...)`` from a result's read report."""
    from lm_workbench.probing.for_views import ReadReport

    read = getattr(result, "read", None)
    return [f"{what}: {ReadReport.from_json('', read).summary()}"] if read else []


def _run_said(result: Any, run_id: int) -> str:
    """"run N", or that run N was recorded before and is shown again (not computed twice)."""
    if getattr(result, "reused_run", None) is not None:
        return f"run {run_id} (recorded before for this model, settings and data: shown again, not recomputed)"
    return f"run {run_id}"
