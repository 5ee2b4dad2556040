"""Building a lecture by clicking: Lectures > Record lecture… and Edit lecture…, and Add step (Ctrl+Shift+A).

The teacher sets up a view as the class should see it and presses Add step: the recorder asks the current
view for what a workspace keeps of it (the view host's ``preset_state``: settings and a corpus), takes the
text box's text and pair when the view reads them and the loaded model (``course:<family>`` for a course
model), and appends a step to a Qt-free ``lm_workbench.lectures.recording.LectureDraft``. The recorder panel
(``lm_workbench.ui.lectures.recorder_panel``) lists the steps to re-caption, reorder, re-take and delete, plays the draft
from a step, and saves it as a preset file in the existing schema (the user's presets folder by default,
listed in the Lectures menu after the built-in ones). Editing an existing preset opens it in the same list.

It gets a ``RecorderServices`` (``lm_workbench.ui.lectures.services``: the views, the models, the text box, the notifier)
and the ``LectureController`` (its menu, and playing the draft), never the window.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.lectures.availability import installed_course_models
from lm_workbench.lectures.library import load_preset_file, user_presets_folder
from lm_workbench.lectures.recording import SUFFIX, DraftStep, LectureDraft, make_step, slug
from lm_workbench.lectures.schema import Preset
from lm_workbench.workspace.models import portable_spec
from lm_workbench.ui.view_kit.window_action import window_action

if TYPE_CHECKING:
    from lm_workbench.ui.lectures.controller import LectureController
    from lm_workbench.ui.lectures.recorder_panel import RecorderPanel
    from lm_workbench.ui.lectures.services import RecorderServices

SOURCE = "recorder"
ADD_STEP_KEY = "Ctrl+Shift+A"
FROM_FILE = "A preset file…"


class LectureRecorder(QObject):
    def __init__(self, services: RecorderServices, lectures: LectureController):
        super().__init__(services.owner)
        self.services = services
        self.lectures = lectures
        self.draft: LectureDraft | None = None
        self.panel: RecorderPanel | None = None
        self.record_action = self._action("&Record lecture…", None, self.record,
                                          "Build a lecture by clicking: each view as it is now becomes a step")
        self.edit_action = self._action("Edi&t lecture…", None, self.edit,
                                        "Open a preset in the recorder's list to change its steps")
        self.add_action = self._action("&Add step", ADD_STEP_KEY, self.add_step,
                                       f"The current view as it is now becomes the lecture's next step ({ADD_STEP_KEY})")
        self.add_action.setEnabled(False)
        lectures.add_menu_actions([self.record_action, self.edit_action, self.add_action])

    def _action(self, text: str, shortcut: str | None, slot: Any, tip: str) -> QAction:
        return window_action(self.services.owner, text, shortcut, slot, tip)

    # ------------------------------------------------------------- opening
    def record(self) -> LectureDraft:
        """A new, empty lecture in the panel (an open panel with steps is raised instead, nothing is lost)."""
        if self.panel is not None and self.panel.isVisible() and self.draft is not None and self.draft.steps:
            self.panel.raise_()
            return self.draft
        return self._open(LectureDraft())

    def edit(self, preset: Preset | str | Path | None = None) -> LectureDraft | None:
        """An existing preset (a ``Preset``, a file, or asked for: the Lectures menu's, or a file) in the panel."""
        if preset is None:
            preset = self._choose()
            if preset is None:
                return None
        try:
            if not isinstance(preset, Preset):
                preset = load_preset_file(preset)
            draft = LectureDraft.from_preset(preset)
        except WorkbenchError as exc:
            self.services.notifier.show_error(exc, source=SOURCE)
            return None
        return self._open(draft)

    def _choose(self) -> Preset | str | None:
        from PySide6.QtWidgets import QFileDialog, QInputDialog

        owner = self.services.owner
        titles = [p.title for p in self.lectures.presets] + [FROM_FILE]
        title, ok = QInputDialog.getItem(owner, "Edit a lecture", "Lecture:", titles, 0, False)
        if not ok:
            return None
        if title != FROM_FILE:
            return self.lectures.presets[titles.index(title)]
        path, _ = QFileDialog.getOpenFileName(owner, "Edit a lecture preset", str(user_presets_folder()),
                                              "Presets (*.json)")
        return path or None

    def _open(self, draft: LectureDraft) -> LectureDraft:
        from lm_workbench.ui.lectures.recorder_panel import RecorderPanel

        self.draft = draft
        if self.panel is None:
            self.panel = RecorderPanel(self, self.services.owner)
            self.panel.addAction(self.add_action)  # the key works with the panel active too
            self.panel.closed.connect(lambda: self.add_action.setEnabled(False))
            self.panel.shown.connect(lambda: self.add_action.setEnabled(True))
        first = not self.panel.isVisible()
        self.panel.set_draft(draft)
        self.add_action.setEnabled(True)
        self.panel.show()
        if first:  # once shown (its frame is known): beside the views, not at the screen's corner
            from lm_workbench.ui.widgets.placement import place_over

            place_over(self.panel, self.services.owner, "right")
        self.panel.raise_()
        return draft

    # ----------------------------------------------------------- capturing
    def titles(self) -> dict[str, str]:
        return {e.id: e.title for e in self.services.views.entries()}

    def capture(self, caption: str = "") -> DraftStep | None:
        """The current view as it is now, as a step (None with no view)."""
        s = self.services
        entry = s.views.current_entry()
        if entry is None:
            return None
        loaded = s.models.loaded()
        course = installed_course_models()
        model = portable_spec(loaded.info.spec, loaded.info.folder, course) if loaded is not None else None
        reads = entry.reads_text()
        return make_step(entry.id, caption or entry.title, s.views.preset_state(entry.id),
                         text=s.text.text() if reads else None, pair=s.text.pair() if reads else None,
                         model=model, course_models=course)

    def add_step(self, caption: str = "") -> int | None:
        """Append the current view as a step (its caption from ``caption``, else the view's title, for the teacher
        to type over in the panel); its index."""
        if self.draft is None or self.panel is None:
            return None
        try:
            step = self.capture(caption)
        except WorkbenchError as exc:
            self.services.notifier.show_error(exc, source=SOURCE)
            return None
        if step is None:
            return None
        index = self.draft.add(step)
        self.panel.refresh(index)
        self.panel.edit_caption(select_all=not caption)
        self.services.notifier.status(f"Step {index + 1} added: {self.titles().get(step.view, step.view)}")
        return index

    def retake(self, index: int) -> None:
        """Step ``index`` shows the current view as it is now (its caption stays)."""
        if self.draft is None:
            return
        try:
            step = self.capture()
        except WorkbenchError as exc:
            self.services.notifier.show_error(exc, source=SOURCE)
            return
        if step is not None:
            self.draft.retake(index, step)
            self.services.notifier.status(f"Step {index + 1} taken again")

    # ------------------------------------------------------- saving, trying
    def save(self, path: str | Path | None = None, *, ask: bool = False) -> Path | None:
        """Write the lecture (``path``; asked for with ``ask``; else where it came from or the user's presets
        folder); the Lectures menu lists it from then on."""
        draft = self.draft
        if draft is None:
            return None
        try:
            if ask and path is None:
                from PySide6.QtWidgets import QFileDialog

                start = draft.path or user_presets_folder() / f"{draft.name or slug(draft.title)}{SUFFIX}"
                chosen, _ = QFileDialog.getSaveFileName(self.services.owner, "Save the lecture", str(start),
                                                        "Presets (*.json)")
                if not chosen:
                    return None
                path = chosen if chosen.endswith(SUFFIX) else chosen + SUFFIX
            saved = draft.save(path)
        except WorkbenchError as exc:
            self.services.notifier.show_error(exc, source=SOURCE)
            return None
        self.services.notifier.clear(SOURCE)
        self.lectures.refresh()
        self.services.notifier.status(f"Saved the lecture to {saved}")
        return saved

    def play(self, index: int = 0) -> bool:
        """Run the draft as a lecture from step ``index`` (as the saved file will run)."""
        if self.draft is None:
            return False
        try:
            preset = self.draft.to_preset(str(self.draft.path) if self.draft.path else "")
        except WorkbenchError as exc:
            self.services.notifier.show_error(exc, source=SOURCE)
            return False
        return self.lectures.start(preset, index)
