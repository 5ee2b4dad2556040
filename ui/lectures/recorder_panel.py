"""The recorder's panel: a small tool window beside the main one with the lecture's title and steps.

Each row is "i. View: caption". Selecting a row puts its caption in the caption line, where typing
re-captions it; Up and Down (or a drag) reorder, Re-take takes the current view again for the selected step,
Delete removes it, Play runs the lecture from the selected step, Save writes it (Save as… asks where).
The edits go to the recorder's Qt-free ``LectureDraft``; this only shows it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QHideEvent, QShowEvent
from PySide6.QtWidgets import QFormLayout, QListWidget, QListWidgetItem, QWidget

from lm_workbench.ui.lectures.recorder_actions import RecorderActions
from lm_workbench.ui.widgets import boxes, controls

if TYPE_CHECKING:
    from lm_workbench.lectures.recording import LectureDraft

ROLE = Qt.ItemDataRole.UserRole
SIZE_FRACTION = 0.4  # of the main window's size


class RecorderPanel(QWidget):
    shown = Signal()
    closed = Signal()

    def __init__(self, recorder: RecorderActions, parent: QWidget):
        super().__init__(parent, Qt.WindowType.Tool)
        self.setObjectName("lectureRecorder")
        self.recorder = recorder
        self.draft: LectureDraft | None = None
        self.title_edit = controls.line_edit("The lecture's title (its menu entry)")
        self.steps = QListWidget()
        self.steps.setObjectName("recorderSteps")
        self.steps.setDragDropMode(QListWidget.DragDropMode.InternalMove)
        self.steps.setWordWrap(True)
        self.caption_edit = controls.line_edit("The selected step's caption (one line)")
        self.hint = controls.label(f"Set up a view, then Add step ({recorder.add_action.shortcut().toString()}).",
                                   wrap=True)
        self.add_button = controls.button("Add step", tip=recorder.add_action.toolTip(),
                                          clicked=lambda: recorder.add_step())
        self.retake_button = controls.button("Re-take", tip="The selected step shows the current view as it is now "
                                                            "(its caption stays)",
                                             clicked=lambda: self._on_row(recorder.retake))
        self.up_button = controls.button("▲ Up", clicked=lambda: self.move_step(-1))
        self.down_button = controls.button("▼ Down", clicked=lambda: self.move_step(1))
        self.delete_button = controls.button("Delete", clicked=self.delete)
        self.play_button = controls.button("Play from here", tip="Run the lecture from the selected step, as the "
                                                                 "saved file will run",
                                           clicked=lambda: recorder.play(max(self.row(), 0)))
        self.save_button = controls.button("Save", clicked=lambda: recorder.save(
            ask=self.draft is not None and self.draft.path is None))
        self.save_as_button = controls.button("Save as…", clicked=lambda: recorder.save(ask=True))

        form = QFormLayout()
        form.addRow("Title", self.title_edit)
        form.addRow("Caption", self.caption_edit)
        edit_row = boxes.row(self.add_button, self.retake_button, self.up_button, self.down_button,
                             self.delete_button)
        file_row = boxes.row(self.play_button, self.save_button, self.save_as_button)
        boxes.column(self, self.hint, (self.steps, 1), form, edit_row, file_row, margins="panel_margins",
                     spacing="row_spacing")
        self.resize(parent.size() * SIZE_FRACTION)

        self.title_edit.textEdited.connect(self._title_edited)
        self.caption_edit.textEdited.connect(self._caption_edited)
        self.steps.currentRowChanged.connect(self._selected)
        self.steps.model().rowsMoved.connect(lambda *_args: QTimer.singleShot(0, self._dragged))  # after the drop

    # ---------------------------------------------------------------- show
    def set_draft(self, draft: LectureDraft) -> None:
        if self.draft is not None:
            self.draft.events.changed.disconnect(self._changed)
        self.draft = draft
        draft.events.changed.connect(self._changed)
        self.title_edit.setText(draft.title)
        self._show_title()
        self.refresh(0 if draft.steps else None)

    def _changed(self) -> None:
        self._show_title()

    def _show_title(self) -> None:
        """"Record a lecture: <title>", with "*" while it has changes not saved."""
        draft = self.draft
        title = f"Record a lecture: {draft.title}" if draft.title else "Record a lecture"
        self.setWindowTitle(title + ("*" if draft.modified else ""))

    def row(self) -> int:
        return self.steps.currentRow()

    def refresh(self, select: int | None = None) -> None:
        """The list again from the draft, with row ``select`` (else the same row) selected."""
        select = self.row() if select is None else select
        titles = self.recorder.titles()
        self.steps.blockSignals(True)
        self.steps.clear()
        for i, step in enumerate(self.draft.steps if self.draft else []):
            item = QListWidgetItem(self._text(i, step.caption, titles.get(step.view, step.view)))
            item.setData(ROLE, i)
            item.setToolTip(step.view)
            self.steps.addItem(item)
        count = self.steps.count()
        self.steps.setCurrentRow(min(select, count - 1) if count else -1)
        self.steps.blockSignals(False)
        self._selected(self.row())

    @staticmethod
    def _text(index: int, caption: str, title: str) -> str:
        return f"{index + 1}. {title}: {caption}"

    def edit_caption(self, select_all: bool = True) -> None:
        """Focus the caption line (the new step's caption, selected so typing replaces it)."""
        self.activateWindow()
        self.caption_edit.setFocus()
        if select_all:
            self.caption_edit.selectAll()

    def _selected(self, row: int) -> None:
        has = self.draft is not None and 0 <= row < len(self.draft.steps)
        self.caption_edit.setText(self.draft.steps[row].caption if has else "")
        self.caption_edit.setEnabled(has)
        for button in (self.retake_button, self.delete_button, self.play_button):
            button.setEnabled(has)
        self.up_button.setEnabled(has and row > 0)
        self.down_button.setEnabled(has and row < len(self.draft.steps) - 1)

    # ---------------------------------------------------------------- edit
    def _title_edited(self, text: str) -> None:
        if self.draft is not None:
            self.draft.set_title(text)

    def _caption_edited(self, text: str) -> None:
        row = self.row()
        if self.draft is None or not 0 <= row < len(self.draft.steps) or not text.strip():
            return  # an empty caption is not kept: the schema wants one
        self.draft.recaption(row, text)
        step = self.draft.steps[row]
        self.steps.item(row).setText(self._text(row, step.caption, self.recorder.titles().get(step.view, step.view)))

    def _on_row(self, action) -> None:
        row = self.row()
        if self.draft is not None and 0 <= row < len(self.draft.steps):
            action(row)
            self.refresh(row)

    def move_step(self, delta: int) -> None:
        row = self.row()
        if self.draft is not None and 0 <= row < len(self.draft.steps):
            self.refresh(self.draft.move(row, row + delta))

    def delete(self) -> None:
        self._on_row(self.draft.delete if self.draft is not None else (lambda _row: None))

    def _dragged(self) -> None:
        """A row was dragged: the draft takes the list's new order."""
        order = [self.steps.item(i).data(ROLE) for i in range(self.steps.count())]
        moved = self.steps.currentItem().data(ROLE) if self.steps.currentItem() is not None else None
        if self.draft is None or order == list(range(len(order))) or sorted(order) != list(range(len(order))):
            return
        self.draft.reorder(order)
        self.refresh(order.index(moved) if moved in order else None)

    # -------------------------------------------------------------- closing
    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802
        super().showEvent(event)
        self.shown.emit()  # shown again (the window system hides tool windows with their main window)

    def hideEvent(self, event: QHideEvent) -> None:  # noqa: N802
        super().hideEvent(event)
        self.closed.emit()

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802
        super().closeEvent(event)
        self.closed.emit()
