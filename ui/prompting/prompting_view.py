"""The Prompting tab: design a prompt, see what the model scores, measure it, build few-shot prompts, generate.

The prompt (template, verbalizer, input) sits on top with its errors shown
while typing; below it four pages: Score (one input: the prompt's tokens,
each label's score and probability, the model's own top-k, and Explain: which
tokens a label's score rests on), Evaluate (a
labelled file, several prompts side by side, calibration, the confusion
matrix), Few-shot (demonstrations, the final prompt, accuracy against k) and
Generate (tokens streaming in). Every model call runs through ``ctx.jobs``
with progress and Cancel (Esc); what the tab shows lives in a
``lm_workbench.prompting.state.PromptingState``.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QLabel, QTabWidget, QWidget

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.progress import Progress
from lm_workbench.engine.prompting.names import MODES
from lm_workbench.ui.prompting.evaluate_panel import EvaluatePanel
from lm_workbench.ui.prompting.fewshot_panel import FewShotPanel
from lm_workbench.ui.prompting.generate_panel import GeneratePanel
from lm_workbench.ui.prompting.prompt_editor import PromptEditor
from lm_workbench.ui.prompting.prompt_sets import PromptSetBar
from lm_workbench.ui.prompting.score_panel import ScorePanel
from lm_workbench.prompting.view_tasks import generation_job, scoring_job
from lm_workbench.attribution.view_tasks import prompt_label_job
from lm_workbench.ui.widgets.boxes import column, row
from lm_workbench.ui.widgets.controls import button, combo_box, progress_bar
from lm_workbench.ui.widgets.notice import Notice
from lm_workbench.prompting.state import PromptingState

PAGES = ("Score", "Evaluate", "Few-shot", "Generate")


def mode_for(loaded: Any) -> str:
    """cloze for a masked LM, prefix for a left-to-right LM or an encoder-decoder."""
    from lm_workbench.models.for_views import Family

    return "cloze" if loaded is None or loaded.family is Family.ENCODER else "prefix"


def model_note(loaded: Any, mode: str, n_labels: int | None) -> tuple[str, str]:
    """(the plain line about the loaded model, its level): missing, headless for the prompt's mode, or too small
    for prompting to work ("" when none is needed)."""
    if loaded is None:
        return "Load a model: prompts are scored by the loaded model.", "info"
    from lm_workbench.prompting.for_views import small_model_note
    from lm_workbench.prompting.for_views import check_model_for
    from lm_workbench.prompting.for_views import Template

    try:
        check_model_for(loaded, Template("[x] [z]", mode))
    except WorkbenchError as exc:
        return f"This model cannot score prompts: {exc}.", "warning"
    note = small_model_note(loaded, n_labels)
    return (note, "warning") if note else ("", "")


class PromptingView(QWidget):
    def __init__(self, ctx: Any, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctx = ctx
        self.state = PromptingState()
        self._loaded: Any = None
        self._scored_by: Any = None  # the model the shown scores are of (Explain reads its ids)
        self.model_notice = Notice()
        self.other_models = combo_box(tip="Your recent models and the hub models in your local cache")
        self.open_model_button = button("Load it",
                                        clicked=lambda: self.ctx.open_model(self.other_models.currentText()))
        self.other_models_row = QWidget()
        row(QLabel("Another model you have:"), (self.other_models, 1), self.open_model_button,
            owner=self.other_models_row)
        self.editor = PromptEditor(self.state)
        self.set_bar = PromptSetBar(self.state, ctx)
        self.score_button = button("Score", tip="Score the input with every label's answers (Ctrl+Enter)",
                                   clicked=self.score)
        self.cancel_button = button("Cancel", tip="Stop the running job (Esc)", clicked=self.cancel, enabled=False)
        self.progress = progress_bar()
        self.progress.setFormat("")
        self.pages = QTabWidget()
        self.pages.setDocumentMode(True)
        self.score_page = ScorePanel(self.state)
        self.evaluate_page = EvaluatePanel(self.state, ctx, self._run)
        self.fewshot_page = FewShotPanel(self.state, ctx, self._run)
        self.generate_page = GeneratePanel(self.state)
        for page, title in zip((self.score_page, self.evaluate_page, self.fewshot_page, self.generate_page), PAGES):
            self.pages.addTab(page, title)

        buttons = row(self.score_button, self.cancel_button, (self.progress, 1), self.set_bar)
        column(self, self.model_notice, self.other_models_row, self.editor, buttons, (self.pages, 1), margins=None,
               spacing=None)

        self.editor.validity_changed.connect(self._validity_changed)
        self.generate_page.generate_button.clicked.connect(self.generate)
        self.generate_page.cancel_button.clicked.connect(self.cancel)
        self.generate_page.use_prompt_button.clicked.connect(self.use_prompt_for_generation)
        self.score_page.explain.explain_requested.connect(self.explain_label)
        self.score_page.explain.cancel_requested.connect(self.cancel)
        shortcut = QShortcut(QKeySequence("Ctrl+Return"), self, self.score)
        shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        shortcut = QShortcut(QKeySequence("Ctrl+Enter"), self, self.score)
        shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        ctx.model_changed.connect(self.set_model)
        self.set_model(ctx.loaded)

    # -- model -----------------------------------------------------------------------------------------
    def set_model(self, loaded: Any) -> None:
        self.state.set_mode(mode_for(loaded))
        self.editor.set_model(loaded)
        self._loaded = loaded
        text = self._show_model_note()
        from lm_workbench.models.candidates import model_candidates

        this = {loaded.info.spec, loaded.info.folder} if loaded is not None else set()
        candidates = [c for c in model_candidates(self.ctx.settings.recent_models) if c not in this and
                      c.rstrip("/") not in this] if text else []
        self.other_models.clear()
        self.other_models.addItems(candidates)
        self.other_models_row.setVisible(bool(candidates))
        can_generate = loaded is None or self._can_generate(loaded)
        self.generate_page.setEnabled(can_generate)
        if not can_generate:
            self.generate_page.summary.setText("Generation needs a decoder or an encoder-decoder; the loaded model "
                                               "is an encoder (score cloze prompts with it instead).")
        elif not self.state.generated:
            self.generate_page.summary.setText("")

    def _show_model_note(self) -> str:
        text, level = model_note(self._loaded, self.state.mode, self._label_count())
        if text:
            self.model_notice.show_message(text, level)
        else:
            self.model_notice.clear_message()
        return text

    def _label_count(self) -> int | None:
        from lm_workbench.prompting.for_views import Verbalizer

        try:
            return len(Verbalizer.parse(self.state.verbalizer).labels)
        except WorkbenchError:
            return None

    @staticmethod
    def _can_generate(loaded: Any) -> bool:
        from lm_workbench.models.for_views import Family

        return loaded.family in (Family.DECODER, Family.ENCODER_DECODER)

    def _validity_changed(self, ok: bool) -> None:
        if self._loaded is not None:
            self._show_model_note()  # chance depends on the number of labels
        self.score_button.setEnabled(ok and not self.ctx.jobs.busy())
        self.evaluate_page.set_prompt_valid(ok)
        self.fewshot_page.set_prompt_valid(ok)

    # -- running ---------------------------------------------------------------------------------------
    def _require_model(self) -> Any:
        loaded = self.ctx.loaded
        if loaded is None:
            self.ctx.show_message("Load a model first: the prompt is scored by the loaded model.", "info")
        return loaded

    def score(self) -> None:
        """Score the input with the current prompt (Ctrl+Enter)."""
        if not self.state.usable():
            self.editor.select_problem()
            return
        loaded = self._require_model()
        if loaded is None:
            return
        self.pages.setCurrentWidget(self.score_page)

        def scored(out: Any) -> None:
            self._scored_by = loaded
            self.state.set_scored(*out)

        self._run(scoring_job(loaded, self.state), scored, "Scoring the prompt…")

    def explain_label(self) -> None:
        """Attribute the selected label's score (the predicted label's) to the filled prompt's tokens."""
        panel = self.score_page.explain
        scored, loaded = self.state.scored, self._scored_by
        if scored is None or loaded is None or loaded is not self.ctx.loaded:
            panel.show_error("Score the input first (Ctrl+Enter): Explain attributes a label's score.")
            return
        label = self.score_page.selected_label()
        panel.set_busy(True)

        def explained(explanation: Any) -> None:
            panel.show_explanation(explanation)
            panel.summary.setText(f"Label <b>{label}</b>: " + panel.summary.text())

        def failed(exc: BaseException, tb: str) -> None:
            if isinstance(exc, WorkbenchError):
                panel.show_error(str(exc))
            else:
                panel.show_error("The explanation could not be computed (see the message above).")
                self.ctx.show_error(exc, tb)

        self._run(prompt_label_job(loaded, scored, label, panel.method(), panel.layer(), panel.foil_request()),
                  explained,
                  "Explaining the label's score…", on_cancelled=panel.show_cancelled, on_error=failed)

    def generate(self) -> None:
        loaded = self._require_model()
        if loaded is None:
            return
        prompt = self.generate_page.prompt_edit.toPlainText()
        if not prompt.strip():
            self.use_prompt_for_generation()
            prompt = self.generate_page.prompt_edit.toPlainText()
        settings = self.generate_page.settings()
        self.state.set_generation(settings)
        self.state.start_generation(prompt)
        self._run(generation_job(loaded, prompt, settings),
                  lambda generation: self.state.end_generation(f"stopped by {generation.stopped_by}"),
                  "Generating…", on_partial=lambda t: self.state.add_generated(t.id, t.text, t.prob),
                  on_cancelled=lambda: self.state.end_generation("cancelled"))

    def use_prompt_for_generation(self) -> None:
        text = self.state.text_before_answer().rstrip()
        if text:
            self.generate_page.prompt_edit.setPlainText(text)

    def _run(self, fn: Any, on_done: Any, label: str, on_partial: Any = None, on_cancelled: Any = None,
             on_error: Any = None) -> None:
        self._set_running(True)

        def done(value: Any) -> None:
            self._set_running(False)
            on_done(value)

        def failed(exc: BaseException, tb: str) -> None:
            self._set_running(False)
            if on_error is not None:
                on_error(exc, tb)
            elif isinstance(exc, WorkbenchError):
                self.ctx.show_message(str(exc), "warning")
            else:
                self.ctx.show_error(exc, tb)

        def cancelled() -> None:
            self._set_running(False)
            self.progress.setFormat("Cancelled")
            if on_cancelled is not None:
                on_cancelled()

        self.ctx.clear_message()
        self.ctx.jobs.run(fn, done, step="prompting", label=label, on_progress=self._progress,
                          on_partial=on_partial, on_error=failed, on_cancelled=cancelled)

    def cancel(self) -> None:
        self.ctx.jobs.cancel()

    # -- presets and workspaces ------------------------------------------------------------------------
    # what a lecture step or a workspace may set here (apply_preset_step takes them, preset_state reports them)
    preset_settings = frozenset({"prompt_set", "mode", "template", "verbalizer", "x", "x2", "page", "score"})

    def apply_preset_step(self, settings: dict[str, Any], inputs: dict[str, Any]) -> None:
        """A lecture step or a workspace: ``mode`` (cloze or prefix), ``prompt_set`` (an installed set's name:
        its templates of that mode become the comparison, the first the prompt), ``template`` and
        ``verbalizer`` (override the set's), ``x`` and ``x2`` (the input), ``page`` (Score, Evaluate,
        Few-shot or Generate) and ``score`` (score the input now, on the loaded model)."""
        st = self.state
        if "mode" in settings:
            if settings["mode"] not in MODES:
                raise ValueError(f"mode must be {' or '.join(MODES)}, not {settings['mode']!r}")
            st.set_mode(settings["mode"])
        if settings.get("prompt_set"):
            name = str(settings["prompt_set"])
            if name not in self.set_bar.plugins():
                raise WorkbenchError(f"no prompt set {name!r} is installed (installed: "
                                     f"{', '.join(self.set_bar.plugins()) or 'none'})")
            self.set_bar.use_plugin(name)
        if "template" in settings:
            st.set_template(str(settings["template"]))
        if "verbalizer" in settings:
            st.set_verbalizer(str(settings["verbalizer"]))
        if "x" in settings or "x2" in settings:
            st.set_inputs(str(settings.get("x", st.x)), str(settings.get("x2", st.x2)))
        page = settings.get("page")
        if page in PAGES:
            self.pages.setCurrentIndex(PAGES.index(page))
        self._show_model_note()
        if settings.get("score"):
            self.score()  # replaces a job of this tab still running

    def preset_state(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """What a workspace keeps: the prompt, its input, the mode and the page (scores are recomputed)."""
        st = self.state
        return {"mode": st.mode, "template": st.template, "verbalizer": st.verbalizer, "x": st.x, "x2": st.x2,
                "page": PAGES[self.pages.currentIndex()]}, {}

    def _progress(self, report: Progress) -> None:
        self.progress.setRange(0, max(1, report.total))
        self.progress.setValue(report.done)
        self.progress.setFormat(report.message or "%p%")

    def _set_running(self, running: bool) -> None:
        if running:
            self.progress.setRange(0, 0)  # busy until the first progress report
            self.progress.setFormat("")
        else:
            self.progress.setRange(0, 1)
            self.progress.setValue(0)
            self.progress.setFormat("")
        self.cancel_button.setEnabled(running)
        self.score_button.setEnabled(not running and self.state.usable())
        self.evaluate_page.set_running(running)
        self.fewshot_page.set_running(running)
        self.generate_page.set_running(running)
        self.score_page.explain.explain_button.setEnabled(not running)
        self.score_page.explain.cancel_button.setEnabled(running)
        self.set_bar.setEnabled(not running)
