"""The window's status bar: what is happening, how far along, and Cancel.

The Cancel button is enabled exactly while a job runs. The progress bar
appears only when a job has run for a moment (so quick jobs such as
tokenizing on each keystroke do not make it flicker); it is indeterminate
until the job reports ``Progress``. Three kinds of message:

- a view's message (``set_message``) belongs to the tab that was current when it was written
  (``set_context``): another tab shows its own last message, or "Ready";
- a moment's message (``say``: a model loaded, a picture copied, a lecture step recorded, F5's hint) shows
  now, on the current tab only: a tab change drops it (coming back shows the tab's own message), a newer
  message replaces it, a job's label shows over it while the job runs;
- a running job's label and progress stay while it runs (they are everyone's) and are kept for no tab: when
  the job ends, the tab's own message comes back unless the view wrote a new one.
"""

from __future__ import annotations

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QLabel, QProgressBar, QPushButton, QStatusBar, QWidget

from lm_workbench.engine.progress import Progress

from lm_workbench.ui import theme

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
        self._moment: tuple[object, str] | None = None  # (tab, text) of the last ``say``, until the tab changes

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
            self._moment = None  # the newer message
            self._from_job = False
            self._show(text)

    def say(self, text: str) -> None:
        """Show ``text``, a message of this moment (not the tab's): it goes with the next tab change."""
        self._moment = (self._context, text)
        self._from_job = False
        self._show(text)

    def job_says(self, text: str) -> None:
        """Show ``text`` as the running job's message ("Cancelling…"): it goes when the job ends."""
        self._show(text)
        self._from_job = self._busy

    def set_context(self, key: object) -> None:
        """``key`` (the current tab) is current now: its own last message shows (or "Ready"), not another
        tab's; while a job runs its message stays."""
        if key == self._context:
            return
        self._context, self._moment = key, None
        if not (self._busy and self._from_job):
            self._show_own()

    def _show_own(self) -> None:
        """The moment's message if it belongs to the current tab, else the tab's own last message."""
        self._from_job = False
        moment = self._moment if self._moment is not None and self._moment[0] == self._context else None
        self._show(moment[1] if moment else self._messages.get(self._context, READY))

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
            if self._from_job:  # the job's label or progress: the tab's own message again
                self._show_own()

    def job_started(self, name: str, label: str | None) -> None:
        if label:
            self._show(label)
            self._from_job = True

    def show_progress(self, progress: Progress) -> None:
        if not self._busy:
            return
        if progress.total > 0:
            self._progress.setRange(0, 1000)
            self._progress.setValue(int(progress.fraction * 1000))
        if progress.message:
            self._show(progress.message[:1].upper() + progress.message[1:] + "…")
            self._from_job = True
