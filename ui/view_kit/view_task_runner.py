"""One view's jobs on the window's interactive lane: newest request wins, stale results dropped.

Every view runs its work through a ``ViewJobs`` that its ``ViewContext``
gives it. A job is a function of a cancel token returning a value or a
generator that yields ``Progress`` and ``Partial`` (see ``lm_workbench.engine.progress``).
Each ``run`` is a new generation: the lane cancels the job it replaces, and
whatever the replaced job still reports (progress, partial results, its
result or its error) is dropped here, so a view only ever hears about the
request it made last.

``when_idle=True`` is for jobs a view starts by itself (after a model load,
say): if the lane is busy with another view's job (or the window's
tokenizing) the request waits until the lane is idle instead of cancelling
that job; if the lane is busy with this view's own stale job, it replaces it.
"""

from __future__ import annotations

import time
from typing import Any, Callable

from PySide6.QtCore import QObject, QTimer, Signal

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.progress import CancelToken, Progress
from lm_workbench.ui.view_kit.job_bridge import JobBridge

ErrorHandler = Callable[[BaseException, str], None]


class ViewJobs(QObject):
    """Runs one view's jobs; see the module docstring."""

    started = Signal(str)  # label ("" for a quiet job)
    finished = Signal(str)  # outcome: done | failed | cancelled

    def __init__(self, bridge: JobBridge, name: str, *, status: Callable[[str], None] | None = None,
                 on_unhandled_error: ErrorHandler | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self._bridge = bridge
        self._name = name
        self._status = status
        self._unhandled = on_unhandled_error
        self._gen = 0
        self._key: int | None = None  # the bridge's key of our newest job
        self._running = False
        self._kept = False  # our newest job was submitted with keep (later jobs wait behind it)
        self._queued: Callable[[], None] | None = None
        bridge.busy_changed.connect(self._bridge_busy_changed)

    # ----------------------------------------------------------------- API
    def run(
        self,
        fn: Callable[[CancelToken], Any],
        on_done: Callable[[Any], None],
        *,
        step: str = "job",
        label: str | None = None,
        on_progress: Callable[[Progress], None] | None = None,
        on_partial: Callable[[Any], None] | None = None,
        on_error: ErrorHandler | None = None,
        on_cancelled: Callable[[], None] | None = None,
        when_idle: bool = False,
        keep: bool = False,
    ) -> None:
        """Run ``fn`` for this view (replacing its stale job); handlers run on the Qt thread. ``keep``: a long job
        of the view's own (training the tuned lens) that later jobs of the window wait behind instead of
        cancelling it; ``cancel`` still stops it."""
        def submit() -> None:
            self._submit(fn, on_done, step, label, on_progress, on_partial, on_error, on_cancelled, keep)

        if when_idle and self._bridge.busy and not self.owns_lane():
            self._queued = submit  # a newer request of ours replaces it; runs once the lane is idle
            return
        self._queued = None
        submit()

    def cancel(self) -> None:
        """Stop this view's job (queued or running); another view's job is left alone."""
        self._queued = None
        if self.owns_lane():
            self._bridge.cancel()
        elif self._kept and self._running and self._key is not None:  # a kept job with later ones waiting behind
            self._bridge.cancel_job(self._key)

    def busy(self) -> bool:
        """True while a request of this view runs or waits for the lane."""
        return self._running or self._queued is not None

    def owns_lane(self) -> bool:
        return self._key is not None and self._bridge.latest_key == self._key

    @property
    def generation(self) -> int:
        return self._gen

    # ------------------------------------------------------------ internal
    def _submit(self, fn, on_done, step, label, on_progress, on_partial, on_error, on_cancelled, keep=False) -> None:
        if self._bridge.closed:
            return
        self._kept = keep
        self._gen += 1
        gen = self._gen
        started = time.monotonic()
        self._running = True
        live = lambda: gen == self._gen  # noqa: E731

        def end(outcome: str) -> bool:
            if not live():
                return False
            self._running = False
            self.finished.emit(outcome)
            return True

        def done(value: Any) -> None:
            if end("done"):
                if label and self._status is not None:
                    self._status(f"{label.rstrip('…')}: done in {time.monotonic() - started:.2f} s")
                on_done(value)

        def failed(exc: BaseException, tb: str) -> None:
            if not end("failed"):
                return
            if label and self._status is not None:
                self._status(f"{label.rstrip('…')}: failed")
            if on_error is not None:
                on_error(exc, tb)
            elif self._unhandled is not None:
                self._unhandled(exc, tb)
            elif not isinstance(exc, WorkbenchError):
                raise exc

        def cancelled() -> None:
            if end("cancelled"):
                if self._status is not None and label:
                    self._status("Cancelled")
                if on_cancelled is not None:
                    on_cancelled()

        self._key = self._bridge.run(
            fn, name=f"{self._name}-{step}", on_done=done, on_error=failed,
            on_progress=(lambda p: live() and on_progress(p)) if on_progress is not None else None,
            on_partial=(lambda v: live() and on_partial(v)) if on_partial is not None else None,
            on_cancelled=cancelled, label=label, keep=keep)
        self.started.emit(label or "")

    def _bridge_busy_changed(self, busy: bool) -> None:
        if not busy and self._queued is not None:
            QTimer.singleShot(0, self, self._run_queued)  # after the handlers of the job that just ended

    def _run_queued(self) -> None:
        if self._queued is None or self._bridge.closed:
            return
        if self._bridge.busy and not self.owns_lane():
            return  # another job took the lane first: wait for the next idle
        submit, self._queued = self._queued, None
        submit()
