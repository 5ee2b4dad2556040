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

A job that reports ``Progress`` with a total gets a determinate bar and, once its pace is measurable (a few
seconds into the current phase), "about M:SS left" after its message; a report without a total (a phase
that cannot be counted) makes the bar indeterminate again. A long run in the window's long-run lane
(pre-training, fine-tuning, ... started from any tab) has a section of its own on the right
(``set_long_run``, fed by ``lm_workbench.ui.run_tracking.run_watch.LongRunWatch``): what runs, "step k of n",
the time left and its own bar; while one runs, a tab with nothing to say shows no "Ready".
"""

from __future__ import annotations

import time

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QLabel, QStatusBar, QWidget

from lm_workbench.engine.progress import Progress

from lm_workbench.ui import theme
from lm_workbench.ui.run_tracking.run_follower import format_eta
from lm_workbench.ui.view_kit.forwarded import forwarded
from lm_workbench.ui.widgets.controls import button, slim_progress_bar
from lm_workbench.ui.widgets.elided_label import ElidedLabel
from lm_workbench.ui.widgets.interval_timer import interval_timer

SHOW_PROGRESS_AFTER_MS = 250
READY = "Ready"
ETA_AFTER_S = 3.0  # seconds into a phase before its pace is trusted
ETA_MIN_FRACTION = 0.02  # ... and this much of it done


class PhasePace:
    """Time left in a job's current phase from its fraction done over time (a phase starts when the fraction
    goes back or the total changes)."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self._origin: tuple[float, float] | None = None  # (time, fraction) where the phase's pace is measured
        self._key: tuple[int, float] | None = None  # (total, last fraction)

    def eta_s(self, progress: Progress, now: float) -> float | None:
        if progress.total <= 0:
            self.reset()
            return None
        fraction = progress.fraction
        if self._key is None or progress.total != self._key[0] or fraction < self._key[1]:
            self._origin = (now, fraction)
        self._key = (progress.total, fraction)
        t0, f0 = self._origin
        if now - t0 < ETA_AFTER_S or fraction - f0 < ETA_MIN_FRACTION or fraction >= 1.0:
            return None
        return (now - t0) * (1.0 - fraction) / (fraction - f0)


class JobStatusBar(QStatusBar):
    cancel_requested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setSizeGripEnabled(False)
        self._message = QLabel(READY)
        theme.bind(self, lambda w, m: w._message.setContentsMargins(*m.status_margins))
        self._progress = slim_progress_bar()
        self._progress.hide()
        self._cancel = button("Cancel", tip="Stop the running job (Esc)", clicked=self.cancel_requested, enabled=False)
        self._run_label = ElidedLabel()  # the long-run lane's run (set_long_run)
        self._run_label.setObjectName("long_run")
        theme.bind(self, lambda w, m: w._run_label.setContentsMargins(*m.status_margins))
        self._run_bar = slim_progress_bar()
        self._run_label.hide()
        self._run_bar.hide()
        self._pace = PhasePace()
        self.addWidget(self._message, 1)
        self.addPermanentWidget(self._run_label, 1)
        self.addPermanentWidget(self._run_bar)
        self.addPermanentWidget(self._progress)
        self.addPermanentWidget(self._cancel)
        self._reveal = interval_timer(self, SHOW_PROGRESS_AFTER_MS, self._progress.show, single_shot=True)
        self._busy = False
        self._context: object = None  # the current tab
        self._messages: dict[object, str] = {}  # each tab's last message
        self._from_job = False  # the message shown is the running job's label or progress
        self._moment: tuple[object, str] | None = None  # (tab, text) of the last ``say``, until the tab changes

    # ----------------------------------------------------------------- API
    cancel_button = forwarded("_cancel", "The Cancel button (a ``QPushButton``).")
    progress_bar = forwarded("_progress", "The running job's ``QProgressBar``.")
    long_run_label = forwarded("_run_label", "The long-run lane's run (an ``ElidedLabel``).")
    long_run_bar = forwarded("_run_bar", "The long-run lane's ``QProgressBar``.")

    def message(self) -> str:
        return self._message.text()

    def follow_runs(self, services: object) -> None:
        """Show what the long-run lane of ``services`` (a ``RunServices``) runs, from now on."""
        from lm_workbench.ui.run_tracking.run_watch import LongRunWatch

        self.run_watch = LongRunWatch(services, self)
        self.run_watch.changed.connect(self.set_long_run)

    def set_long_run(self, text: str | None, fraction: float | None = None) -> None:
        """What the long-run lane runs (None: nothing) and how far along (None: not known yet)."""
        if text is None:
            self._run_label.hide()
            self._run_bar.hide()
            self._run_label.setText("")
            if self._message.text() == "" and not self._busy:
                self._show_own()
            self._message.show()
            return
        self._run_label.setText(text)
        if fraction is None:
            self._run_bar.setRange(0, 0)
        else:
            self._run_bar.setRange(0, 1000)
            self._run_bar.setValue(int(round(fraction * 1000)))
        self._run_label.show()
        self._run_bar.show()
        if self._message.text() == READY:
            self._show("")

    def _ready(self) -> str:
        """What a tab with nothing to say shows: "Ready", unless a long run is working."""
        return "" if self._run_label.text() else READY

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
        self._show(moment[1] if moment else self._messages.get(self._context, self._ready()))

    def _show(self, text: str) -> None:
        self._message.setText(text)
        self._message.setToolTip(text)
        self._message.setVisible(bool(text) or not self._run_label.text())  # empty: the long run gets the room

    def set_busy(self, busy: bool) -> None:
        self._busy = busy
        self._cancel.setEnabled(busy)
        if busy:
            self._progress.setRange(0, 0)  # indeterminate until a report comes
            self._pace.reset()
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
        elif progress.message:  # a phase that cannot be counted
            self._progress.setRange(0, 0)
        eta = self._pace.eta_s(progress, time.monotonic())
        if progress.message:
            text = progress.message[:1].upper() + progress.message[1:] + "…"
            self._show(text + (f" about {format_eta(eta)} left" if eta is not None else ""))
            self._from_job = True
