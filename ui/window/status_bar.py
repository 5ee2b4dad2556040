"""The window's status bar: what is happening, how far along, and Cancel.

The Cancel button is enabled exactly while a job runs. The progress bar
appears only when a job has run for a moment (so quick jobs such as
tokenizing on each keystroke do not make it flicker); it is indeterminate
until the job reports ``Progress``. A message belongs to the tab that was current
when it was written (``set_context``): another tab shows its own last message,
or "Ready"; a running job's own label and progress stay (they are everyone's).
"""

from __future__ import annotations

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QLabel, QProgressBar, QPushButton, QStatusBar, QWidget

from engine.progress import Progress

from ui import theme

SHOW_PROGRESS_AFTER_MS = 250
READY = "Ready"


class JobStatusBar(QStatusBar):
    cancel_requested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setSizeGripEnabled(False)
        self._message = QLabel(READY)
        theme.bind(self, lambda w, m: w._message.setContentsMargins(*m.status_margins))
        self._progress = QProgressBar()
        theme.bind(self, lambda w, m: w._progress.setFixedWidth(m.status_progress_w))
        theme.bind(self, lambda w, m: w._progress.setMaximumHeight(m.status_progress_h))
        self._progress.setTextVisible(False)
        self._progress.hide()
        self._cancel = QPushButton("Cancel")
        self._cancel.setToolTip("Stop the running job (Esc)")
        self._cancel.setEnabled(False)
        self._cancel.clicked.connect(self.cancel_requested)
        self.addWidget(self._message, 1)
        self.addPermanentWidget(self._progress)
        self.addPermanentWidget(self._cancel)
        self._reveal = QTimer(self)
        self._reveal.setSingleShot(True)
        self._reveal.setInterval(SHOW_PROGRESS_AFTER_MS)
        self._reveal.timeout.connect(self._progress.show)
        self._busy = False
        self._context: object = None  # the current tab
        self._messages: dict[object, str] = {}  # each tab's last message
        self._from_job = False  # the message shown is the running job's label or progress

    # ----------------------------------------------------------------- API
    @property
    def cancel_button(self) -> QPushButton:
        return self._cancel

    @property
    def progress_bar(self) -> QProgressBar:
        return self._progress

    def message(self) -> str:
        return self._message.text()

    def set_message(self, text: str, key: object = ...) -> None:
        """Show ``text`` (the current tab's); with ``key`` (a view's id), ``key``'s message, shown while it is
        current (a view's job that ends after the teacher moved on does not write on the next tab)."""
        key = self._context if key is ... or key is None else key
        self._messages[key] = text
        if key == self._context:
            self._from_job = False
            self._show(text)

    def set_context(self, key: object) -> None:
        """``key`` (the current tab) is current now: its own last message shows (or "Ready"), not another
        tab's; while a job runs its message stays."""
        if key == self._context:
            return
        self._context = key
        if not (self._busy and self._from_job):
            self._show(self._messages.get(key, READY))

    def _show(self, text: str) -> None:
        self._message.setText(text)
        self._message.setToolTip(text)

    def set_busy(self, busy: bool) -> None:
        self._busy = busy
        self._cancel.setEnabled(busy)
        if busy:
            self._progress.setRange(0, 0)  # indeterminate until a report comes
            self._reveal.start()
        else:
            self._reveal.stop()
            self._progress.hide()
            self._progress.setRange(0, 1)
            self._progress.setValue(0)

    def job_started(self, name: str, label: str | None) -> None:
        if label:
            self.set_message(label)
            self._from_job = True

    def show_progress(self, progress: Progress) -> None:
        if not self._busy:
            return
        if progress.total > 0:
            self._progress.setRange(0, 1000)
            self._progress.setValue(int(progress.fraction * 1000))
        if progress.message:
            self.set_message(progress.message[:1].upper() + progress.message[1:] + "…")
            self._from_job = True
