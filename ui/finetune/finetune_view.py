"""The "Fine-tune" tab: the form on the left; training, bench and before/after on the right.

Start hands the form's ``FineTuneSpec`` to the window's long-run lane (a
child process trains, so a crash never takes the window down); a
``RunFollower`` polls the run store and feeds the curves. When a run ends its
output folder (``summary.json``, ``validation_predictions.jsonl``,
``confusion.json``) is read into the tab's ``FineTuneState``: the confusion
matrix, the predictions (errors first) and a bench row. The bench queues the
ticked methods and submits the next when one ends. Before/after compares the
base and the tuned model per layer (off the Qt thread) and opens the tuned
model in the other views (a full fine-tune as it is, LoRA merged). A classifier
run's predictions table explains a row's label (Explain, off the Qt thread).
The Instruct page (``lm_workbench.ui.finetune.instruct_panel``) shows, for the instruct task, the chat template, one
training example's tokens coloured trained / not trained and the trained tokens per batch (off the Qt thread),
and after a run the held-out prompts answered by the base and the tuned model side by side.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QProgressBar, QSplitter, QTabWidget, QWidget

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.finetune.names import SENTENCE_TASK
from lm_workbench.ui import theme
from lm_workbench.ui.finetune.bench_panel import BenchPanel
from lm_workbench.ui.finetune.finetune_form import FineTuneForm
from lm_workbench.ui.finetune.instruct_panel import InstructPanel
from lm_workbench.ui.finetune.methods import load_methods
from lm_workbench.ui.finetune.results_panel import ResultsPanel
from lm_workbench.ui.finetune.run_curves import FineTuneCurves
from lm_workbench.ui.finetune.shift_plot import ShiftPlot
from lm_workbench.ui.finetune.sts_table import StsTable
from lm_workbench.ui.view_kit.result_origin_line import ResultOriginLine
from lm_workbench.result_origin import ResultOrigin
from lm_workbench.ui.run_tracking.run_follower import RunFollower, RunProgress, describe_progress
from lm_workbench.ui.widgets.boxes import column, flush_column, row
from lm_workbench.ui.widgets.controls import button, label
from lm_workbench.ui.widgets.message_bar import MessageBar
from lm_workbench.ui.widgets.scroll_area import scroll_area
from lm_workbench.ui.widgets.fold import FoldSplitter
from lm_workbench.ui.finetune.instruct_actions import InstructActions
from lm_workbench.ui.finetune.reused_results import RecordedRuns
from lm_workbench.finetune.state import FineTuneState, read_result
from lm_workbench.runs.resume import resumable_checkpoint
from lm_workbench.runs.summary import default_out_dir
from lm_workbench.attribution.view_tasks import run_label_job
from lm_workbench.finetune.view_tasks import bench_count_job, merge_job, shift_job, sts_before_after_job

CANCEL_GRACE_S = 10.0
INSTRUCT_SHOWS = ("data", "trained", "before_after")  # a lecture step's ``show`` for the instruct task
SHIFT_TEXTS = 64  # validation texts the before/after comparison reads

SHIFT_HINT = "Finish a run, then compare the base and the tuned model layer by layer."


class FineTuneView(InstructActions, RecordedRuns, QWidget):
    def __init__(self, ctx: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.services = ctx.run_services
        self.state = FineTuneState()
        self._methods: dict[str, Any] | None = None  # discovered on first use (the plugins import torch)
        self.method_problems: dict[str, str] = {}
        self._form: FineTuneForm | None = None
        self._bench: BenchPanel | None = None
        self.run_id: int | None = None
        self.run_method = ""
        self.run_out: dict[int, str] = {}  # run id -> output folder
        self.last_progress: RunProgress | None = None
        self._bench_running = False
        self._cancelling = False
        self.start_folder = ""  # preference tuning: a run's output folder to start from (start_from_last_run)

        self.message_bar = MessageBar()
        self.title_label = label("No run yet: the demo set of the task is chosen; press Start.", name="sectionTitle",
                                 wrap=True)
        self.status_label = label("", name="summary", wrap=True)
        self.start_button = button("Start", tip="Fine-tune the loaded model with these settings in a separate process",
                                   clicked=lambda: self.start_run())
        self.cancel_button = button("Cancel", clicked=self.cancel_run)
        self.form_button = button("Form", tip="Show or fold away the settings form (a lecture step folds it to give "
                                  "the bench the room)")
        self.form_button.setCheckable(True)
        self.form_button.setChecked(True)
        self.progress_bar = QProgressBar()
        self.progress_bar.setTextVisible(False)
        self.progress_bar.setRange(0, 1)
        theme.bind(self, lambda w, m: w.progress_bar.setMaximumHeight(m.progress_bar_h))
        self.curves = FineTuneCurves()
        self.results = ResultsPanel()
        self.bench_page = QWidget()  # holds the bench panel once the methods are discovered
        flush_column(self.bench_page)
        self.shift_plot = ShiftPlot()
        self.shift_button = button("Compare base and tuned", tip="Per layer: linear CKA and mean cosine of the hidden "
                                   "states of the loaded base model and the last run's model on its validation texts",
                                   clicked=self.compare_layers)
        self.open_button = button("Open tuned model in the views", clicked=self.open_tuned)
        self.shift_label = label(SHIFT_HINT, name="summary", wrap=True)
        self.sts_table = StsTable()  # a sentence-embedding run's STS per layer, base beside trained
        self.sts_table.setVisible(False)
        self.instruct = InstructPanel()
        # whose results these are (issue 49.5): the run's model, data and id; greyed once another run starts (its
        # own results replace them), cleared when another model is loaded
        self.run_origin = ResultOriginLine(self.results, self.sts_table, self.instruct.table,
                                           self.instruct.scores_label, self.instruct.categories,
                                           clear=self._clear_run_results, stale_reason="another run started")
        self._origins: dict[int, ResultOrigin] = {}  # run id -> what it was trained from
        self._build_layout()

        self.form_button.toggled.connect(self.form_scroll.setVisible)
        self.results.explain.explain_requested.connect(self.explain_row)
        self.results.explain.cancel_requested.connect(self.ctx.jobs.cancel)
        self.instruct.preview_requested.connect(self.preview_instruct)
        self.instruct.template_chosen.connect(self._template_chosen)
        self.instruct.use_button.clicked.connect(self.use_edited_template)
        self.follower = RunFollower(self.services, self)
        self.follower.rows.connect(self._rows)
        self.follower.progress.connect(self._progress)
        self.follower.ended.connect(self._ended)
        self.state.events.shift_changed.connect(lambda: self.shift_plot.show_rows(self.state.shift))
        self.state.events.sts_changed.connect(self._show_sts)
        self.state.events.form_changed.connect(self._update_buttons)
        self.state.events.results_changed.connect(lambda *_: self._update_buttons())  # a run came in: hints follow
        ctx.model_changed.connect(lambda *_: self._model_changed())
        self._update_buttons()

    # ------------------------------------------------ the methods, found on first use
    @property
    def methods(self) -> dict[str, Any]:
        """The usable fine-tuning methods by name; discovered (importing the plugins, and torch) on first use,
        so the window opens before torch is imported."""
        self.ensure_methods()
        return self._methods or {}

    @property
    def form(self) -> FineTuneForm:
        self.ensure_methods()
        return self._form

    @property
    def bench(self) -> BenchPanel:
        self.ensure_methods()
        return self._bench

    def ensure_methods(self) -> None:
        """Discover the methods and build the form and the bench from them (once)."""
        if self._form is not None:
            return
        self._methods, self.method_problems = load_methods(self.ctx.settings)
        self._form = FineTuneForm(self.ctx, self.state, self._methods)
        self.form_scroll.setWidget(self._form)
        self._bench = BenchPanel(self.state, self._methods)
        self.bench_page.layout().addWidget(self._bench)
        self._bench.count_button.clicked.connect(self.count_bench)
        self._bench.run_button.clicked.connect(lambda: self.start_bench())
        self._bench.csv_button.clicked.connect(lambda: self._export(self._bench.export_table))
        self._bench.picture_button.clicked.connect(lambda: self._export(self._bench.export_picture))
        if self.method_problems and not self._methods:
            self.message_bar.show_error("No fine-tuning method could be loaded: " + "; ".join(
                f"{k}: {v}" for k, v in self.method_problems.items()), source="methods")
        self._update_buttons()

    def _model_changed(self) -> None:
        self.state.set_counts({})
        self.run_origin.check(self.ctx.loaded, self.run_id)  # another model: the old run's results are cleared
        self._update_buttons()

    def _build_layout(self) -> None:
        scroll = self.form_scroll = scroll_area(frame=False, sideways=False)
        theme.bind(scroll, lambda w, m: w.setMinimumWidth(m.finetune_form_w))
        training = QSplitter(Qt.Orientation.Vertical)
        training.addWidget(self.curves)
        training.addWidget(self.results)
        after = QWidget()
        column(after, row(self.shift_button, self.open_button, 1), (self.sts_table, 1), self.shift_label,
               (self.shift_plot, 1), margins="panel_margins", spacing=None)
        self.tabs = QTabWidget()
        self.tabs.addTab(training, "Training")
        self.tabs.addTab(self.bench_page, "Bench")
        self.tabs.addTab(after, "Before/after")
        self.tabs.addTab(self.instruct, "Instruct")
        right = QWidget()
        buttons = row(self.form_button, self.start_button, self.cancel_button, (self.progress_bar, 1))
        column(right, self.message_bar, self.title_label, self.status_label, self.run_origin, buttons, (self.tabs, 1),
               margins="side_column_margins")
        splitter = FoldSplitter()  # the form above the results where both do not fit side by side
        splitter.addWidget(scroll)
        splitter.addWidget(right)
        splitter.setStretchFactor(1, 1)
        column(self, splitter, margins="panel_margins", spacing=None)

    def showEvent(self, event) -> None:  # noqa: N802
        self.ensure_methods()
        if self.form.count is None and self.ctx.loaded is not None and not self.ctx.jobs.busy():
            self.form.recount()  # the form counts only while shown (a model loaded meanwhile is counted now)
        super().showEvent(event)

    # ----------------------------------------------------------------- API
    @property
    def status(self) -> str | None:
        return self.last_progress.status if self.last_progress is not None else None

    @property
    def active(self) -> bool:
        return self.run_id is not None and self.status not in ("finished", "failed", "cancelled", "interrupted")

    def start_run(self, reuse: bool = False) -> int | None:
        """Submit the form's run; its id, or None with the reason shown. ``reuse`` (a lecture step or guide page):
        the run recorded for the same model, settings and data is shown instead (``RecordedRuns``)."""
        self._reuse = reuse
        self._bench_running = False
        self.state.clear_queue()
        self.curves.clear(self.state.task)
        return self._submit(self.state.method)

    def start_bench(self, reuse: bool = False) -> list[str]:
        """Queue the ticked methods and start the first; returns the queue (``reuse``: as ``start_run``'s)."""
        self._reuse = reuse
        if not self.state.bench:
            self.message_bar.show_error("Tick at least one method for the bench.", source="bench")
            return []
        queue = self.state.start_bench()
        self._bench_running = True
        self.bench.curves.clear(self.state.task)
        self.curves.clear(self.state.task)
        self.tabs.setCurrentWidget(self.bench_page)
        if self._submit(self.state.next_in_queue()) is None:
            self._bench_running = False
            self.state.clear_queue()
        return queue

    def cancel_run(self) -> None:
        self.state.clear_queue()
        self._bench_running = False
        if self.run_id is None or not self.services.has_lane:
            return
        self.services.lane.cancel(self.run_id, grace_s=CANCEL_GRACE_S)
        self._cancelling = True
        self.status_label.setText("Cancelling…")
        self._update_buttons()

    def compare_layers(self) -> None:
        result, loaded = self.state.last_result(), self.ctx.loaded
        if result is None or loaded is None:
            self.message_bar.show_error("Load the base model and finish a run first.", source="shift")
            return
        texts = [r["sentence1"] if r.get("sentence1") else  # a sentence pair: its first sentence
                 r["text"] if isinstance(r.get("text"), str) else " ".join(map(str, r.get("text") or []))
                 for r in result.predictions[:SHIFT_TEXTS]]
        self.shift_label.setText(f"Comparing the base model and run #{result.run_id} ({result.method}) on "
                                 f"{len(texts)} validation texts…")
        self.ctx.jobs.run(shift_job(loaded, result.out_dir, texts, self.state.max_length),
                          lambda rows: self._shift_done(result.run_id, rows), step="shift",
                          label="Comparing layers…", on_error=self._job_failed)

    def open_tuned(self) -> None:
        """A full fine-tune opens as it is; a mergeable method (LoRA) is merged and saved first."""
        result = self.state.last_result()
        if result is None:
            return
        if result.summary.get("task") == SENTENCE_TASK:  # its folder opens as the encoder (OUT/model, or its adapter)
            self._open(result.out_dir)
            return
        method = self.methods.get(result.method)
        folder = Path(result.out_dir) / "adapter"
        if result.method == "full" and (folder / "config.json").is_file():
            self._open(str(folder))
        elif getattr(method, "can_merge", False):
            self.ctx.jobs.run(merge_job(result.out_dir), self._open, step="merge",
                              label="Merging LoRA into the weights…", on_error=self._job_failed)
        else:
            self.message_bar.show_error(f"{result.method} keeps its weights apart from the base model and cannot "
                                        "be merged; only full fine-tuning and LoRA open in the other views.",
                                        source="open")

    def explain_row(self) -> None:
        """Attribute the predicted label of the selected row of the predictions table to its tokens."""
        panel, result = self.results.explain, self.results.result
        request = self.results.explain_request()
        if request is None or result is None:
            panel.show_error("Select a row of the predictions table: Explain attributes its predicted label.")
            return
        request = request.with_foil(panel.foil_request())  # "instead of": another label, or the second one
        panel.set_busy(True)
        self.ctx.jobs.run(run_label_job(result.out_dir, request, panel.method(), panel.layer()),
                          panel.show_explanation, step="explain", label="Explaining the label…",
                          on_error=self._explain_failed, on_cancelled=panel.show_cancelled)

    def _explain_failed(self, exc: BaseException, tb: str) -> None:
        if isinstance(exc, WorkbenchError):
            self.results.explain.show_error(str(exc))
        else:
            self.results.explain.show_error("The explanation could not be computed (see the message above).")
            self.ctx.show_error(exc, tb)

    def count_bench(self) -> None:
        """Count what each ticked bench method trains, without training (off the Qt thread, cancellable)."""
        loaded, names = self.ctx.loaded, list(self.state.bench)
        if loaded is None or not names:
            self.message_bar.show_error("Load a model and tick the methods to count.", source="bench")
            return
        specs = [self.state.spec(loaded.info.spec, out_dir="", method=name) for name in names]
        self.bench.counts_label.setText("Trainable parameters: counting…")
        self.ctx.jobs.run(bench_count_job(specs), self.state.set_counts, step="bench-count",
                          label="Counting trainable parameters…", on_error=self._job_failed,
                          on_cancelled=lambda: self.bench.counts_label.setText(""))

    # ------------------------------------------------------ instruction tuning
    # ------------------------------------------------------ presets and workspaces
    # what a lecture step or a workspace may set here (apply_preset_step takes them, preset_state reports them)
    preset_settings = frozenset({"task", "epochs", "seed", "methods", "show", "method", "template", "lr", "start"})

    def apply_preset_step(self, settings: dict[str, Any], inputs: dict[str, Any]) -> None:
        """A lecture step or a workspace: ``task``, ``epochs``, ``seed`` (the form), ``method`` and ``lr`` (the
        form's method and its learning rate), ``template`` (instruct), ``methods`` (ticked on the bench) and
        ``show``: ``parameters`` (the bench counts what each ticked method trains) or ``curves`` (the bench runs
        them, unless it already has their results; their curves overlaid); for the instruct task ``data`` and
        ``trained`` (the Instruct page: the template and one example's trained tokens) or ``before_after`` (the
        form's method trains unless an instruct run finished, then the held-out answers before and after), ``margin``
        (preference tuning: the form's run trains unless one finished; its DPO curves and before/after);
        ``start``: ``last_run`` makes preference tuning start from the tab's last instruct run."""
        self.ensure_methods()
        self.form.set_values(task=settings.get("task"), epochs=settings.get("epochs"), seed=settings.get("seed"))
        if "method" in settings:
            if settings["method"] not in self.methods:
                raise WorkbenchError(f"no fine-tuning method {settings['method']!r} is available")
            self.form.method_combo.setCurrentIndex(self.form.method_combo.findData(settings["method"]))
        if "lr" in settings:  # after the method, whose default it replaces
            self.form.set_values(lr=float(settings["lr"]))
        if "template" in settings:
            self.instruct.set_template_choice(str(settings["template"]))
            self.state.set_form(template=str(settings["template"]))
        if "methods" in settings:
            unknown = [m for m in settings["methods"] if m not in self.methods]
            if unknown:
                raise WorkbenchError(f"no fine-tuning method {', '.join(map(repr, unknown))} is available")
            self.bench.set_ticked(list(settings["methods"]))
        if "start" in settings:  # preference tuning may start from the tab's last instruct (or preference) run
            self.start_from_last_run(settings["start"] == "last_run")
        show = settings.get("show")
        if show is None:
            return
        if show in INSTRUCT_SHOWS:
            self._show_instruct(show)
            return
        if show == "margin":  # preference tuning: the DPO run's loss, reward margin and accuracy; before/after
            self.tabs.setCurrentIndex(0)
            self.form_button.setChecked(False)
            if not self.show_last_run("preference") and not self.active:
                self.start_run(reuse=True)
            return
        if show not in ("parameters", "curves"):
            raise ValueError(f"show must be parameters, curves, margin, {', '.join(INSTRUCT_SHOWS)}, not {show!r}")
        self.tabs.setCurrentWidget(self.bench_page)
        self.form_button.setChecked(False)  # the bench is what a class sees: the form folds away (Form shows it)
        if show == "parameters":
            if not all(m in self.state.counts for m in self.state.bench):
                self.count_bench()
        elif not self.state.has_bench_results(self.state.bench) and not self.active:
            self.start_bench(reuse=True)

    def start_from_last_run(self, on: bool = True) -> str:
        """Preference tuning starts from the output folder of this tab's last finished instruct or preference run
        (DPO after instruction tuning) instead of the loaded model; returns that folder ("" when none or off)."""
        runs = [r for r in self.state.results.values() if r.summary.get("task") in ("instruct", "preference")]
        self.start_folder = runs[-1].out_dir if on and runs else ""
        return self.start_folder

    def _start_model(self, loaded: Any) -> str:
        """What a run starts from: the loaded model, or (preference tuning) the run folder chosen to start from."""
        if self.state.task == "preference" and self.start_folder and Path(self.start_folder).is_dir():
            return self.start_folder
        return loaded.info.spec

    def preset_state(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """What a workspace keeps: the task, epochs, seed and the ticked bench methods (runs stay in the run
        store)."""
        return {"task": self.state.task, "epochs": self.state.epochs, "seed": self.state.seed,
                "methods": list(self.state.bench)}, {}

    def shutdown(self) -> None:
        self.follower.stop()

    # ------------------------------------------------------------ internal
    def _submit(self, method_name: str | None) -> int | None:
        loaded, method = self.ctx.loaded, self.methods.get(method_name or "")
        try:
            if loaded is None:
                raise WorkbenchError("load a model first: fine-tuning starts from the loaded model")
            if method is None:
                raise WorkbenchError(f"no fine-tuning method {method_name!r} is available")
            if self.state.task not in method.tasks:
                raise WorkbenchError(f"{method_name} does not support {self.state.task}")
            for flag, path in (("training", self.state.train), ("validation", self.state.validation)):
                if (flag == "training" or path) and not Path(path).is_file():
                    raise WorkbenchError(f"the {flag} file {path or '(none)'} does not exist; choose one")
            if method_name == self.state.method and self.form.config_form.config() is None:
                raise WorkbenchError(f"fix the {method_name} settings: {self.form.config_form.error()}")
            out_dir = str(default_out_dir("finetune", method_name, time_first=True))
            spec = self.state.spec(self._start_model(loaded), out_dir, method=method_name)
            run_id, spec = self.submit_or_recall(spec)
        except WorkbenchError as exc:
            self.message_bar.show_error(str(exc), source="start")
            return None
        self.message_bar.clear()
        self.run_id, self.run_method, self.last_progress = run_id, method_name, None
        self.run_out[run_id] = spec.out_dir
        self._cancelling = False
        self.state.submitted(run_id, method_name)
        self.remember_origin(run_id, loaded, method_name)
        self.run_origin.check(loaded, run_id)  # the previous run's results: greyed and named until this one's come
        for curves in (self.curves, self.bench.curves) if self._bench_running else (self.curves,):
            curves.add_run(run_id, method_name)
        start = f" from …/{Path(spec.model).name}" if spec.model != loaded.info.spec else ""  # a run's folder
        self.title_label.setText(f"Run #{run_id}: {spec.title()}{start}")
        self.status_label.setText("Starting a process: loading the model and reading the data come first…")
        self.progress_bar.setRange(0, 0)
        self.follower.follow(run_id)  # its length comes from the run once its loop starts
        self._update_buttons()
        return run_id

    def _rows(self, run_id: int, rows: list) -> None:
        self.curves.add_rows(run_id, rows)
        if self._bench is not None:
            self._bench.curves.add_rows(run_id, rows)  # only the bench's runs are drawn there

    def _progress(self, run_id: int, progress: RunProgress) -> None:
        if run_id != self.run_id:
            return
        self.last_progress = progress
        if progress.status == "running" and progress.determinate:
            self.progress_bar.setRange(0, 1000)
            self.progress_bar.setValue(int(progress.fraction * 1000))
        if progress.status == "running" and progress.step and not self._cancelling:
            self.status_label.setText(f"Training {self.run_method}: {describe_progress(progress)}.")
        self._update_buttons()

    def _ended(self, run_id: int, status: str) -> None:
        self.state.ended(run_id)
        self.progress_bar.setRange(0, 1)
        self.progress_bar.setValue(1 if status == "finished" else 0)
        if status == "finished":
            try:
                result = read_result(run_id, self.run_method, self.run_out[run_id])
            except (WorkbenchError, OSError, ValueError, KeyError) as exc:
                self.message_bar.show_error(f"Run #{run_id} finished but its results cannot be read: {exc}",
                                            source="run")
            else:
                self.remember_key(run_id)
                self.state.add_result(result)
                self.show_finished(result)
                best = result.best_text(self.state.task)
                self.status_label.setText(f"Finished {self.run_method}{self.reused_note(run_id)}: {best}; the output "
                                          f"is in …/{Path(result.out_dir).name}.")
                self.status_label.setToolTip(result.out_dir)
                if result.summary.get("task") == SENTENCE_TASK:
                    self.compare_sts(result)
        else:
            error = self.last_progress.error if self.last_progress is not None else None
            kept = resumable_checkpoint(self.run_out.get(run_id))
            resume = f" Its checkpoint ({kept.name}) is kept: Resume it in the Runs tab." if kept else ""
            self.status_label.setText(f"Run #{run_id} {status}." + (f" {error}" if error else "") + resume)
            if status != "cancelled":
                self.message_bar.show_error(f"Run #{run_id} {status}: {error or 'no message'}", source="run")
            self.state.clear_queue()
            self._bench_running = False
        if self._bench_running:
            following = self.state.next_in_queue()
            if following is not None:
                self._submit(following)
            else:
                self._bench_running = False
        self._update_buttons()

    def _run_summary(self, method_name: str | None) -> str:
        st = self.state
        data = Path(st.train).name if st.train else "no training file"
        return f"{method_name} on {data} ({st.task})"

    def _clear_run_results(self) -> None:
        self.results.show_result(None)
        self.sts_table.show_rows([], "")
        self.sts_table.setVisible(False)
        self.instruct.clear_before_after()

    def compare_sts(self, result: Any) -> None:
        """A sentence run's STS table before/after on its validation pairs (off the Qt thread)."""
        loaded = self.ctx.loaded
        pairs = [(str(r.get("sentence1")), str(r.get("sentence2")), float(r["gold"])) for r in result.predictions
                 if r.get("sentence1") is not None and r.get("gold") is not None]
        if loaded is None or len(pairs) < 3:
            self.sts_table.setVisible(True)
            self.sts_table.show_rows([], "No STS table: the run was validated on triplets (loss only); give a "
                                         "validation file of scored pairs (sentence1, sentence2, score).")
            return
        pooling = str((result.summary.get("sentence") or {}).get("pooling") or "mean")
        self.sts_table.setVisible(True)
        self.sts_table.show_rows([], f"Computing STS before and after on {len(pairs)} validation pairs…")
        self.tabs.setCurrentIndex(2)
        self.ctx.jobs.run(sts_before_after_job(loaded, result.out_dir, pairs, pooling),
                          lambda found: self._sts_done(result.run_id, pooling, len(pairs), found), step="sts",
                          label="STS before and after…", on_error=self._job_failed)

    def _sts_done(self, run_id: int, pooling: str, pairs: int, found: Any) -> None:
        before, after = found
        self._sts_caption = (f"Run #{run_id}: Spearman's rho of {pairs} validation pairs' cosines against their "
                             f"scores, per layer; before = the loaded base with {pooling} pooling, after = the "
                             f"trained encoder (its pooling). The last layer is the one trained for.")
        why = [f"{side}, {line}" for side, result in (("before", before), ("after", after))
               for line in getattr(result, "notes", [])]
        if why:
            self._sts_caption += " Not defined: " + "; ".join(why) + "."
        self.state.set_sts(run_id, [(layer, b, a) for layer, b, a in zip(before.layers, before.spearman,
                                                                          after.spearman)])

    def _show_sts(self) -> None:
        self.sts_table.show_rows(self.state.sts, getattr(self, "_sts_caption", ""))

    def _shift_done(self, run_id: int, rows: list) -> None:
        self.state.set_shift(run_id, rows)
        low = min(rows, key=lambda r: r[1])
        self.shift_label.setText(f"Run #{run_id}: layer {low[0]} moved most (1 − linear CKA {1 - low[1]:.2g}, "
                                 f"1 − mean cosine {1 - low[2]:.2g}); layer 0 is the embeddings.")

    def _open(self, folder: str) -> None:
        self.ctx.register_model(folder)
        self.ctx.open_model(folder)

    def _job_failed(self, exc: BaseException, tb: str) -> None:
        self.ctx.show_error(exc, "" if isinstance(exc, WorkbenchError) else tb)

    def _export(self, fn: Any) -> None:
        try:
            path = fn()
        except (WorkbenchError, OSError) as exc:
            self.message_bar.show_error(f"Export failed: {exc}", source="export")
            return
        if path is not None:
            self.ctx.status(f"Saved {path}")

    def _update_buttons(self) -> None:
        active = self.active
        ready = self.ctx.loaded is not None and (self._methods is None or bool(self._methods))
        self.start_button.setEnabled(ready and not active)
        if self._bench is not None:
            self._bench.run_button.setEnabled(ready and not active)
            self._bench.count_button.setEnabled(ready and bool(self.state.bench))
        self.cancel_button.setEnabled(active and not self._cancelling)
        last = self.state.last_result()
        self.shift_button.setEnabled(last is not None and self.ctx.loaded is not None)
        if last is not None and self.shift_label.text() == SHIFT_HINT:  # the hint asked for a run: one finished
            self.shift_label.setText(f"Run #{last.run_id} ({last.method}) finished: press Compare base and tuned to "
                                     "see how far each of its layers moved from the base model's.")
        can_open = last is not None and (last.method == "full" or getattr(
            self.methods.get(last.method), "can_merge", False) or last.summary.get("task") == SENTENCE_TASK)
        self.open_button.setEnabled(bool(can_open))
