"""The Guide tab: the guide's pages in lecture order with the student's progress, and the page panel's logic.

Opening a page runs the guide as a lecture preset (``GuideState.as_preset``: one step per page) through the
window's lecture machinery, which the window hands over as a ``GuideDriver`` (``bind``): the page's view becomes
current with its model, text and settings, exactly as a lecture step opens, and PageDown / PageUp step through the
pages. The page's text and exercise show in the ``PagePanel``, which the window docks beside the views. An answer
is checked on the loaded model: its expected value is computed off the Qt thread (``lm_workbench.guide.check``,
the view's own functions), when the lane is idle, and kept for the page while the model stays loaded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QLabel, QMessageBox, QSplitter, QTreeWidget, QTreeWidgetItem, QWidget

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.ui.guide.page_panel import PagePanel
from lm_workbench.ui.widgets import boxes
from lm_workbench.ui.widgets.controls import button, combo_box, label

LABEL = "Computing the answer on the loaded model…"


@dataclass(frozen=True)
class GuideDriver:
    """What the window lends the Guide: its lecture runner (to open pages as steps) and the page panel's dock."""

    start: Callable[[Any, int], bool]  # LectureController.start(preset, index)
    runner: Any  # lm_workbench.lectures.runner.PresetRunner
    status: Callable[[Any], Any]  # LectureController.status(preset) -> PresetStatus
    show_panel: Callable[[bool], None]


class GuideView(QWidget):
    def __init__(self, ctx: Any) -> None:
        super().__init__()
        self.ctx = ctx
        self.driver: GuideDriver | None = None
        self.session: Any = None
        self.guides: list[Any] = []
        self._preset: Any = None
        self.panel = PagePanel()
        self.guide_box = combo_box()
        self.resume_button = button("Resume",
                                    clicked=lambda: self.open_page(self.session.index) if self.session else None)
        self.export_button = button("Export progress (CSV)…", clicked=lambda: self.export_csv())
        self.reset_button = button("Reset progress…", clicked=lambda: self.reset_progress())
        top = boxes.row(QLabel("Guide:"), (self.guide_box, 1), self.resume_button, self.export_button,
                        self.reset_button)
        self.problems = label(wrap=True)
        self.problems.hide()
        self.split = QSplitter(Qt.Orientation.Vertical)
        self.pages = QTreeWidget()
        self.pages.setObjectName("guidePages")
        self.pages.setHeaderLabels(["Page", "View", "Exercise", "Progress"])
        self.pages.setRootIsDecorated(True)
        self.split.addWidget(self.pages)
        boxes.column(self, top, self.problems, (self.split, 1), margins=None, spacing=None)
        self.split.addWidget(self.panel)  # until the window docks it beside the views (bind)
        self.pages.itemActivated.connect(self._activated)
        self.guide_box.currentIndexChanged.connect(self._guide_chosen)
        self.panel.next_requested.connect(lambda: self.open_page(self.session.index + 1))
        self.panel.previous_requested.connect(lambda: self.open_page(self.session.index - 1))
        self.panel.answers.answered.connect(self.answer)
        self.panel.build_requested.connect(self._build)
        self.panel.open_model_requested.connect(self._open_model)
        ctx.model_changed.connect(lambda _loaded: self._model_changed())
        self._loaded = False  # the guides are read when the tab is first shown or a page first opens

    def showEvent(self, event: Any) -> None:  # noqa: N802
        self.ensure_loaded()
        super().showEvent(event)

    def ensure_loaded(self) -> None:
        if not self._loaded:
            self._loaded = True
            self.load()

    # ---------------------------------------------------------------- setup
    def bind(self, driver: GuideDriver) -> None:
        """The window's lecture runner and dock: pages open as lecture steps, the panel sits beside the views."""
        self.driver = driver
        self.panel.setParent(None)
        driver.runner.events.step_changed.connect(self._runner_moved)
        driver.runner.events.started.connect(self._runner_started)

    def load(self) -> None:
        """Read the guides (built-in, the user's, plugins'); a broken guide is listed with its file and line."""
        from lm_workbench.guide.library import all_guides

        try:
            self.guides, problems = all_guides()
        except WorkbenchError as exc:  # the built-in guide itself (a broken install)
            self.guides, problems = [], [str(exc)]
        self.problems.setText("\n".join(f"Not loaded: {p}" for p in problems))
        self.problems.setVisible(bool(problems))
        self.guide_box.blockSignals(True)
        self.guide_box.clear()
        for guide in self.guides:
            self.guide_box.addItem(f"{guide.title} ({guide.origin})", guide.name)
        self.guide_box.blockSignals(False)
        if self.guides:
            self._guide_chosen(0)

    def _guide_chosen(self, index: int) -> None:
        from lm_workbench.guide.progress import Progress
        from lm_workbench.guide.state import GuideState

        if not 0 <= index < len(self.guides):
            return
        if self.session is not None:
            self.session.close()
        self.session = GuideState(self.guides[index], Progress())
        self._preset = self.session.as_preset()
        self.session.events.page_changed.connect(lambda _i: self._show_page())
        self.session.events.progress_changed.connect(self._fill_pages)
        self._fill_pages()
        self._show_page()

    def _fill_pages(self) -> None:
        from lm_workbench.guide.page import LECTURES

        s = self.session
        self.pages.clear()
        rows = {r["page"]: r for r in s.progress.rows(s.guide)}
        groups: dict[int, QTreeWidgetItem] = {}
        for i, page in enumerate(s.guide.pages):
            if page.lecture not in groups:
                groups[page.lecture] = QTreeWidgetItem(self.pages, [f"{page.lecture}. {LECTURES[page.lecture]}"])
                groups[page.lecture].setExpanded(True)
            r = rows[page.id]
            state = "right" if r["answered"] else (f"{r['attempts']} tries" if r["attempts"] else "")
            if r["changed"]:
                state += " (page changed)"
            item = QTreeWidgetItem(groups[page.lecture], [f"{i + 1}. {page.title}", page.view,
                                                          page.exercise.kind if page.exercise else "", state])
            item.setData(0, Qt.ItemDataRole.UserRole, i)
        for column in range(4):
            self.pages.resizeColumnToContents(column)

    def _activated(self, item: QTreeWidgetItem, _column: int) -> None:
        index = item.data(0, Qt.ItemDataRole.UserRole)
        if index is not None:
            self.open_page(int(index))

    # ---------------------------------------------------------------- pages
    def open_page(self, index: int) -> bool:
        """Show page ``index`` and set up its view (through the lecture runner when the window lent one)."""
        self.ensure_loaded()
        s = self.session
        if s is None or not 0 <= index < len(s.guide.pages):
            return False
        if index != s.index:
            s.go(index)
        else:
            s.progress.visit(s.guide.name, s.page.id)
            self._show_page()
        d = self.driver
        if d is not None:
            d.show_panel(True)
            if d.runner.preset is self._preset:
                d.runner.go(index)
            else:
                d.start(self._preset, index)
        return True

    def _runner_started(self, preset: Any) -> None:
        if preset is not self._preset and self.driver is not None:
            self.driver.show_panel(False)  # a lecture runs: its captions explain

    def _runner_moved(self, index: int) -> None:
        """PageDown / PageUp (the lecture runner) moved to another page of this guide."""
        if self.driver is not None and self.driver.runner.preset is self._preset and index != self.session.index:
            self.session.go(index)

    def _status(self) -> Any:
        if self.driver is None:
            return None
        return self.driver.status(self._preset).steps[self.session.index]

    def _show_page(self) -> None:
        s = self.session
        page, n = s.page, len(s.guide.pages)
        ex = page.exercise
        self.panel.show_page(f"Lecture {page.lecture} · page {s.index + 1} of {n}", page.title, page.body, s.changed(),
                             ex.ask if ex else "", s.index == 0, s.index == n - 1)
        record = s.progress.page(s.guide.name, page.id)
        if record.answered:
            self.panel.show_feedback("You answered this page right before; try it again on another model.", None)
        self.panel.show_problem("")
        status = self._status()
        if status is not None and not status.available:
            self.panel.show_problem(status.reason, build=bool(self._missing_families()))
        elif self.ctx.loaded is not None:
            from lm_workbench.guide.check import needs_problem

            problem = needs_problem(page, self.ctx.loaded)
            if problem:
                self.panel.show_problem(problem, open_model=self._model_name())
        self._setup_answers()

    def _model_name(self) -> str:
        model = self.session.page.model
        return model if isinstance(model, str) else model[0]

    def _missing_families(self) -> list[str]:
        from lm_workbench.lectures.availability import (
            COURSE, installed_course_models, missing_course_models, model_candidates,
        )

        page, course = self.session.page, installed_course_models()
        families = set(missing_course_models(page.step.settings, course))
        candidates = model_candidates(page.step.model or page.model)
        if all(c.startswith(COURSE) for c in candidates):
            families |= {c[len(COURSE):] for c in candidates if c[len(COURSE):] not in course}
        return sorted(families)

    def _setup_answers(self) -> None:
        ex, loaded = self.session.page.exercise, self.ctx.loaded
        if ex is None:
            return
        info = loaded.info if loaded is not None else None
        layers = (info.layers + 1) if info is not None else 0  # 0 = the embeddings where a view counts them
        heads = info.heads if info is not None else 0
        options = tuple(o.label for o in ex.options)
        self.panel.answers.setup(ex.kind, layers=layers, heads=heads, options=options)
        if loaded is not None and ex.kind in ("click-token", "click-head", "click-layer"):
            self._compute(lambda exp: self._cells_from(exp))  # the exact cells (tokens, grid) of this step

    def _cells_from(self, exp: Any) -> None:
        ex = self.session.page.exercise
        layers, heads = exp.grid
        if ex.kind == "click-token" and exp.tokens:
            self.panel.answers.setup(ex.kind, tokens=exp.tokens)
        elif layers:
            self.panel.answers.setup(ex.kind, layers=layers, heads=heads)

    def _model_changed(self) -> None:
        """Another model: answers are computed again; the page shown says whether this model can answer it."""
        if self.session is not None:
            self.session.forget_model()
            if self.panel.isVisible():
                self._show_page()

    # -------------------------------------------------------------- answers
    def _compute(self, then: Callable[[Any], None], retries: int = 3) -> None:
        """The current page's expected answer on the loaded model (computed once per page and model); a job that
        another view's newer job cancels is asked again when the lane is idle (``retries`` times: Esc still
        stops it)."""
        from lm_workbench.guide.check import answer_of
        from lm_workbench.lectures.availability import installed_course_models

        s, loaded = self.session, self.ctx.loaded
        page, spec = s.page, loaded.info.spec
        known = s.known(spec)
        if known is not None:
            then(known)
            return
        course = installed_course_models()

        def current() -> bool:  # still this page on this model (another load or page makes it stale)
            return s.page.id == page.id and self.ctx.loaded is loaded

        def done(exp: Any) -> None:
            s.remember(page.id, spec, exp)
            if current():
                then(exp)

        def failed(exc: BaseException, tb: str) -> None:
            if not current():
                return
            if isinstance(exc, WorkbenchError):
                self.panel.show_problem(str(exc), open_model=self._model_name())
                self.panel.show_feedback("", None)
                self.panel.answers.set_enabled(False)
            else:
                self.panel.show_feedback("The answer could not be computed (see the message above).", None)
                self.ctx.show_error(exc, tb)

        def cancelled() -> None:  # another view's newer job took the lane: ask again once it is idle
            if current() and retries > 0:
                self._compute(then, retries - 1)
            elif current():
                self.panel.show_feedback("Cancelled: answer again to check.", None)

        self.panel.answers.set_enabled(True)
        self.ctx.jobs.run(lambda cancel: answer_of(page, spec, lambda _spec: loaded, course), done, step="guide",
                          label=LABEL, on_error=failed, on_cancelled=cancelled, when_idle=True)

    def answer(self, text: str) -> None:
        """Check the student's ``text`` against the answer computed on the loaded model."""
        if self.session is None or self.session.page.exercise is None:
            return
        if self.ctx.loaded is None:
            self.panel.show_feedback(f"Load a model first (this page uses {self._model_name()}).", None)
            return
        self.panel.show_feedback("Checking on the loaded model…", None)
        self._compute(lambda exp: self._judge(text, exp))

    def _judge(self, text: str, exp: Any) -> None:
        try:
            feedback = self.session.answer(text, exp)
        except WorkbenchError as exc:
            self.panel.show_feedback(str(exc), None)
            return
        self.panel.show_feedback(feedback.text, feedback.correct)

    def shutdown(self) -> None:
        """The window closes: the time on the current page is counted."""
        if self.session is not None:
            self.session.close()

    # ------------------------------------------------------------- actions
    def _build(self) -> None:
        course = self.ctx.course_models
        if course is not None:
            course.open_dialog(self._missing_families() or None)

    def _open_model(self) -> None:
        from lm_workbench.guide.check import page_model

        try:
            spec = page_model(self.session.page, default_model=self.ctx.settings.default_model)
        except WorkbenchError as exc:
            self.panel.show_problem(str(exc), build=bool(self._missing_families()))
            return
        self.ctx.open_model(spec)

    def export_csv(self, path: str | None = None) -> str | None:
        """Write this user's progress in the guide as CSV (asks where when ``path`` is None)."""
        self.ensure_loaded()
        if self.session is None:
            return None
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self, "Export guide progress", f"guide-progress-"
                                                  f"{self.session.progress.user}.csv", "CSV (*.csv)")
            if not path:
                return None
        written = self.session.progress.export_csv(self.session.guide, path)
        self.ctx.status(f"Guide progress written to {written}")
        return str(written)

    def reset_progress(self, confirm: bool = True) -> bool:
        self.ensure_loaded()
        if self.session is None:
            return False
        if confirm and QMessageBox.question(
                self, "Reset progress", f"Forget {self.session.progress.user}'s progress in "
                f"{self.session.guide.title}?") != QMessageBox.StandardButton.Yes:
            return False
        self.session.reset()
        return True
