"""Runs lecture presets in the window: the Lectures menu, the caption bar and opening each step.

The stepping itself lives in a Qt-free ``lm_workbench.lectures.runner.PresetRunner``;
this controller listens to it. Opening a step: the caption bar shows "Step
i/n: caption"; a step this installation cannot show says why and opens
nothing; otherwise the step's view becomes current, the text box and pair
line get the step's text, the preset's model is loaded when another one is,
and the view applies the step's settings through the view host (its
``apply_preset_step``). Next and Previous are PageDown and PageUp (what
presentation clickers send), enabled only while something steps, so the keys
scroll as usual otherwise. They go through the window's ``Clicker``
(``lm_workbench.clicker``): the runner is pushed there while a lecture runs,
so a step that opens the attention step-by-step panel steps through the panel
first, then on to the next lecture step. It gets a ``LectureServices``
(``lm_workbench.ui.lectures.services``: the views, the models, the text box, the notifier), not the window.
While the window builds the course models, a step that needs one still to come says "building, 2 of 5 done"
and opens when it arrives (the build's ``moved_on``).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.ui.lectures.caption_bar import LectureBar
from lm_workbench.lectures.availability import (
    PresetStatus, check_preset, installed_course_models, resolve_model, resolve_settings,
)
from lm_workbench.lectures.library import builtin_presets, load_preset_file, user_presets
from lm_workbench.lectures.runner import PresetRunner
from lm_workbench.lectures.schema import Preset
from lm_workbench.pretrain.course_build import current_build, family_name
from lm_workbench.ui.view_kit.window_action import window_action

if TYPE_CHECKING:
    from lm_workbench.ui.lectures.services import LectureServices

SOURCE = "lectures"
START_PAGE_FRACTION = 0.66  # of the window's size


class LectureController(QObject):
    def __init__(self, services: LectureServices):
        super().__init__(services.owner)
        self.services = services
        self.runner = PresetRunner()
        self.bar = LectureBar()
        self._pending: tuple[str, dict[str, Any], dict[str, Any]] | None = None  # waits for the model
        self._waiting: tuple[str, ...] = ()  # course families the current step waits for (being built)
        self.step_opened_at = 0.0  # time.monotonic() when the current step was opened
        self._quiet = False  # resuming from a workspace: show the step's caption, leave the views as restored
        self._about_was_open = False  # the About panel's state when the lecture began
        self.presets: list[Preset] = builtin_presets() + user_presets()[0]  # the teacher's own after the built-in
        self.menu: QMenu | None = None
        self.extra_actions: list[QAction] = []  # the recorder's (Record lecture, Edit lecture, Add step)
        self.next_action = services.next_action  # PageDown/PageUp: the window's Clicker
        self.previous_action = services.previous_action
        # End: a text field with the focus keeps it (it moves the cursor there), elsewhere it ends the lecture
        self.end_action = self._action("&End lecture", "End", self.runner.stop)
        self.start_page_action = self._action("&Start page…", "Ctrl+Shift+L", self.show_start_page)
        self.end_action.setEnabled(False)
        self.bar.next_requested.connect(self.runner.next)
        self.bar.previous_requested.connect(self.runner.previous)
        self.bar.end_requested.connect(self.runner.stop)
        self.runner.events.step_changed.connect(lambda _index: self._open_step())
        self.runner.events.stopped.connect(self._stopped)
        services.models.ready.connect(lambda _loaded: self._apply_pending())
        if services.course_moved_on is not None:
            services.course_moved_on.connect(self.course_models_changed)

    def _action(self, text: str, shortcut: QKeySequence | str | None, slot: Any) -> QAction:
        return window_action(self.services.owner, text, shortcut, slot)

    def _enable_stepping(self, on: bool) -> None:
        """Give the window's Next/Previous (PageDown/PageUp, a clicker) to the lecture, or take them back. While
        a lecture runs its captions explain: the About panel folds away for the room, and opens again after."""
        self.end_action.setEnabled(on)
        s = self.services
        if on:
            if not self.runner.active:
                self._about_was_open = s.about_expanded()
                s.set_about_expanded(False)
            self.services.clicker.push(self.runner)
        else:
            self.services.clicker.remove(self.runner)
            if self._about_was_open:
                s.set_about_expanded(True)

    # ---------------------------------------------------------------- what
    def views(self) -> dict[str, frozenset[str]]:
        return {e.id: e.preset_settings for e in self.services.views.entries()}

    def status(self, preset: Preset) -> PresetStatus:
        build = current_build()
        return check_preset(preset, self.views(), installed_course_models(), build.pending() if build else ())

    def course_models_changed(self) -> None:
        """The course-model build moved on: the running preset's availability is read again, and a step that
        waited for a model opens now that it is here (or says why not, when the build stopped without it)."""
        if not self.runner.active:
            return
        self.runner.status = self.status(self.runner.preset)
        if self._waiting:
            self._open_step()

    def install_menu(self, menu: QMenu) -> None:
        """The presets (unavailable ones greyed, with their reason), opening a file, recording, stepping."""
        self.menu = menu
        menu.setToolTipsVisible(True)
        menu.aboutToShow.connect(self._fill_menu)  # availability read again: course models built meanwhile
        self._fill_menu()

    def add_menu_actions(self, actions: list[QAction]) -> None:
        """Put ``actions`` in the Lectures menu, under opening a file (the recorder's)."""
        self.extra_actions.extend(actions)
        self._fill_menu()

    def refresh(self) -> None:
        """Read the user's presets folder again (a lecture was saved there) and rebuild the menu."""
        self.presets = builtin_presets() + user_presets()[0]
        self._fill_menu()

    def _fill_menu(self) -> None:
        menu = self.menu
        if menu is None:
            return
        menu.clear()
        menu.addAction(self.start_page_action)
        menu.addSeparator()
        for preset in self.presets:
            status = self.status(preset)
            action = menu.addAction(preset.title, lambda p=preset: self.start(p))
            action.setEnabled(status.available)
            action.setToolTip(preset.description if status.available else f"Not available: {status.reason}")
        menu.addSeparator()
        menu.addAction("Open preset &file…", self.open_preset_file)
        if self.extra_actions:
            menu.addSeparator()
            for action in self.extra_actions:
                menu.addAction(action)
        menu.addSeparator()
        for action in (self.next_action, self.previous_action, self.end_action):
            menu.addAction(action)

    def show_start_page(self) -> None:
        from lm_workbench.ui.lectures.start_page import StartPage
        from lm_workbench.ui.lectures.services import StartPageServices

        s = self.services
        self.start_page = StartPage(StartPageServices(
            presets=self.presets, status=self.status, start=self.start, open_preset_file=self.open_preset_file,
            recent_workspaces=list(s.settings.recent_workspaces), open_workspace=s.open_workspace), s.owner)
        self.start_page.resize(s.owner.size() * START_PAGE_FRACTION)
        self.start_page.finished.connect(lambda _result: _take_focus_back(s.owner))
        self.start_page.show()

    # ------------------------------------------------------------- running
    def start(self, preset: Preset, index: int = 0) -> bool:
        """Run ``preset`` from step ``index``; an unavailable preset only says why."""
        status = self.status(preset)
        if not status.available:
            self.services.notifier.show_message(f"{preset.title}: not available here: {status.reason}",
                                                "warning", SOURCE)
            return False
        self.services.notifier.clear(SOURCE)
        ended = self._end_comparison()
        self._enable_stepping(True)
        self.runner.start(preset, status, index)
        if ended:  # said on the step's tab (a moment's message goes with a tab change)
            self.services.notifier.status(ended)
        return True

    def _end_comparison(self) -> str | None:
        """A lecture shows one model: starting one ends a comparison with model B; what to say of it."""
        b = self.services.models.model_b()
        if b is None:
            return None
        self.services.models.stop_comparing()
        return (f"The lecture ends the comparison with model B ({b.info.spec}): a lecture's steps show one model; "
                "Compare with… again afterwards.")

    def resume(self, preset: Preset, index: int) -> bool:
        """Continue a lecture at step ``index`` without opening it (a workspace restores what the views show)."""
        status = self.status(preset)
        if not status.available:
            return False
        self._quiet = True
        try:
            self._enable_stepping(True)
            self.runner.start(preset, status, index)
        finally:
            self._quiet = False
        return True

    def open_preset_file(self, path: str | None = None) -> bool:
        if path is None:
            from PySide6.QtWidgets import QFileDialog

            path, _ = QFileDialog.getOpenFileName(self.services.owner, "Open a lecture preset", "", "Presets (*.json)")
            if not path:
                return False
        try:
            preset = load_preset_file(path)
        except WorkbenchError as exc:
            self.services.notifier.show_error(exc, source=SOURCE)
            return False
        return self.start(preset)

    def _stopped(self) -> None:
        self._pending = None
        self._enable_stepping(False)
        self.bar.hide()

    def _open_step(self) -> None:
        runner, s = self.runner, self.services
        step, status = runner.step(), runner.step_status()
        self.step_opened_at = time.monotonic()
        self.bar.show_step(runner.preset.title, runner.caption(), runner.index, runner.count(), status.available)
        self._pending = None
        if self._waiting:  # the step that waited is open now (or another one is): its message goes
            self._waiting = ()
            s.notifier.clear(SOURCE)
        if not status.available or self._quiet:
            return
        course = installed_course_models()
        if waiting := tuple(f for f in status.waiting if f not in course):
            self._waiting = waiting
            build = current_build()
            names = " and ".join(f"the course {family_name(f)} model" for f in waiting)
            s.notifier.show_message(f"Step {runner.index + 1} needs {names}, on its way ("
                                    f"{build.progress_text() if build else 'the build has stopped'}): it opens "
                                    "when it arrives.", "info", SOURCE)
            return
        try:
            spec = resolve_model(step.model or runner.preset.model, s.settings.default_model, course)
            settings = resolve_settings(step.settings, runner.preset, course)
        except WorkbenchError as exc:
            s.notifier.show_error(exc, source=SOURCE)
            return
        s.clicker.push(self.runner)  # on top again: a panel an earlier step opened steps no more
        s.views.show_view(step.view)
        inputs = step.inputs
        if "text" in inputs or "pair" in inputs:
            text, pair = inputs.get("text", s.text.text()), inputs.get("pair")
            if text != s.text.text() or pair != s.text.pair():
                s.text.set_text(text, pair)
        self._pending = (step.view, settings, dict(inputs))
        if not self._has_model(spec):
            s.models.load(spec)  # the step is applied once it has loaded
            return
        self._apply_pending()

    def _has_model(self, spec: str) -> bool:
        models = self.services.models
        loaded = models.loaded()
        return loaded is not None and not models.loading() and spec in (loaded.info.spec, loaded.info.folder)

    def _apply_pending(self) -> None:
        if self._pending is None:
            return
        view_id, settings, inputs = self._pending
        self._pending = None
        try:
            self.services.views.apply_preset_step(view_id, settings, inputs)
        except (WorkbenchError, ValueError, TypeError, KeyError) as exc:  # a setting the view cannot use
            self.services.notifier.show_message(f"{self.runner.preset.title}, step {self.runner.index + 1}: {exc}",
                                                "warning", SOURCE)


def _take_focus_back(owner: Any) -> None:
    """After the Start page closes the window is active again with the keyboard in it, so PageDown steps through
    the lecture at once (without this, focus stayed with no widget until a click)."""
    owner.raise_()
    owner.activateWindow()
    owner.setFocus()
