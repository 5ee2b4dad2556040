"""Run workbench jobs off the GUI thread and hear about them on it.

``JobBridge`` wraps an ``InteractiveLane`` (one worker thread; a new job
cancels the stale one). The lane calls its callbacks on the worker thread;
the bridge turns each into a Qt signal delivered through a queued
connection, so every handler runs on the GUI thread and may touch widgets.
It also tracks what is running, for the status bar and its Cancel button.
"""

from __future__ import annotations

import itertools
import logging
from dataclasses import dataclass
from typing import Any, Callable

from PySide6.QtCore import QObject, Qt, Signal

from lm_workbench.engine.progress import CancelToken, Progress
from lm_workbench.lanes.interactive import InteractiveLane

log = logging.getLogger(__name__)

ErrorHandler = Callable[[BaseException, str], None]


@dataclass
class _Handlers:
    name: str
    label: str | None
    on_done: Callable[[Any], None]
    on_error: ErrorHandler | None
    on_progress: Callable[[Progress], None] | None
    on_cancelled: Callable[[], None] | None
    on_partial: Callable[[Any], None] | None = None
    ended: bool = False  # its done / error / cancelled handler has run (the lane's "finally" may still be queued)


class JobBridge(QObject):
    """Submit work to the interactive lane; results come back as GUI-thread calls."""

    busy_changed = Signal(bool)
    job_started = Signal(str, object)  # name, status label (None: a quiet job)
    progress = Signal(object)  # Progress of the latest job
    job_finished = Signal(str, str)  # name, outcome: done | failed | cancelled
    error = Signal(object, str, str)  # error, traceback text ("" for WorkbenchError), job name

    # Worker-thread side: each carries the job's key.
    _w_progress = Signal(int, object)
    _w_partial = Signal(int, object)
    _w_done = Signal(int, object)
    _w_error = Signal(int, object, str)
    _w_cancelled = Signal(int)
    _w_finally = Signal(int)

    def __init__(self, parent: QObject | None = None, *, lane_name: str = "interactive-lane"):
        super().__init__(parent)
        self._lane = InteractiveLane(name=lane_name)
        self._keys = itertools.count(1)
        self._handlers: dict[int, _Handlers] = {}
        self._jobs: dict[int, Any] = {}  # key -> the lane's Job, until it has ended
        self._latest: int | None = None
        self._closed = False
        queued = Qt.ConnectionType.QueuedConnection
        self._w_progress.connect(self._on_progress, queued)
        self._w_partial.connect(self._on_partial, queued)
        self._w_done.connect(self._on_done, queued)
        self._w_error.connect(self._on_error, queued)
        self._w_cancelled.connect(self._on_cancelled, queued)
        self._w_finally.connect(self._on_finally, queued)

    # ----------------------------------------------------------------- API
    def run(
        self,
        fn: Callable[[CancelToken], Any],
        name: str,
        on_done: Callable[[Any], None],
        on_error: ErrorHandler | None = None,
        on_progress: Callable[[Progress], None] | None = None,
        *,
        on_cancelled: Callable[[], None] | None = None,
        on_partial: Callable[[Any], None] | None = None,
        label: str | None = None,
        keep: bool = False,
    ) -> int:
        """Submit ``fn(cancel)`` (a value or a generator); returns the job's key.

        Handlers run on the GUI thread, in the order the job reported:
        ``on_progress`` for each ``Progress`` and ``on_partial`` for each
        ``Partial`` it yields, then one of ``on_done``, ``on_error`` or
        ``on_cancelled``. Without ``on_error`` the ``error`` signal reports the
        failure. ``label`` is what the status bar says while the job runs; None
        keeps the job quiet (quick jobs such as tokenizing). ``keep``: later jobs wait behind this one instead of
        cancelling it (``cancel_job(key)`` stops it).
        """
        if self._closed:
            raise RuntimeError("the job bridge is shut down")
        key = next(self._keys)
        was_busy = self.busy
        self._handlers[key] = _Handlers(name, label, on_done, on_error, on_progress, on_cancelled, on_partial)
        self._latest = key
        self._jobs[key] = self._lane.submit(
            fn,
            name=name,
            keep=keep,
            on_progress=lambda p, k=key: self._w_progress.emit(k, p),
            on_partial=lambda v, k=key: self._w_partial.emit(k, v),
            on_done=lambda v, k=key: self._w_done.emit(k, v),
            on_error=lambda e, tb, k=key: self._w_error.emit(k, e, tb),
            on_cancelled=lambda k=key: self._w_cancelled.emit(k),
            on_finally=lambda k=key: self._w_finally.emit(k),
        )
        self.job_started.emit(name, label)
        if not was_busy:
            self.busy_changed.emit(True)
        return key

    @property
    def busy(self) -> bool:
        """True from a submission until its job (and any it replaced) has ended."""
        return bool(self._handlers)

    @property
    def latest_key(self) -> int | None:
        """The key of the newest job still running or waiting (None when idle)."""
        return self._latest if self._latest in self._handlers else None

    @property
    def current_name(self) -> str | None:
        """The newest job's name while it has not ended (its result delivered): a view that waits for the
        tokenizer must not wait for one whose result has come already (its "finally" is a separate event)."""
        h = self._handlers.get(self._latest) if self._latest is not None else None
        return h.name if h and not h.ended else None

    def cancel_job(self, key: int) -> None:
        """Ask the job ``key`` (running or waiting) to stop at its next step; the others go on."""
        job = self._jobs.get(key)
        if job is not None and not self._closed:
            self._lane.cancel(job)

    def cancel(self) -> None:
        """Ask the running (and any waiting) job to stop at its next step."""
        if not self._closed:
            self._lane.cancel_current()

    def shutdown(self, timeout: float = 10.0) -> bool:
        """Cancel everything and join the worker thread; True if it stopped in time."""
        if self._closed:
            return True
        self._closed = True
        stopped = self._lane.shutdown(timeout)
        if not stopped:
            log.warning("the interactive lane did not stop within %.0f s", timeout)
        self._handlers.clear()
        return stopped

    @property
    def closed(self) -> bool:
        return self._closed

    # ------------------------------------------------- GUI-thread delivery
    def _live(self, key: int) -> _Handlers | None:
        return None if self._closed else self._handlers.get(key)

    def _on_progress(self, key: int, progress: Progress) -> None:
        h = self._live(key)
        if h is None:
            return
        if h.on_progress is not None:
            h.on_progress(progress)
        if key == self._latest:
            self.progress.emit(progress)

    def _on_partial(self, key: int, value: Any) -> None:
        h = self._live(key)
        if h is not None and h.on_partial is not None:
            h.on_partial(value)

    def _ended(self, key: int, status: str) -> Any:
        """Job ``key``'s handlers, marked ended once ``job_finished`` says ``status``; None for a stale job."""
        h = self._live(key)
        if h is not None:
            h.ended = True
            self.job_finished.emit(h.name, status)
        return h

    def _on_done(self, key: int, value: Any) -> None:
        h = self._ended(key, "done")
        if h is not None:
            h.on_done(value)

    def _on_error(self, key: int, exc: BaseException, tb: str) -> None:
        h = self._ended(key, "failed")
        if h is None:
            return
        if h.on_error is not None:
            h.on_error(exc, tb)
        else:
            self.error.emit(exc, tb, h.name)

    def _on_cancelled(self, key: int) -> None:
        h = self._ended(key, "cancelled")
        if h is not None and h.on_cancelled is not None:
            h.on_cancelled()

    def _on_finally(self, key: int) -> None:
        self._jobs.pop(key, None)
        if self._closed or self._handlers.pop(key, None) is None:
            return
        if not self._handlers:
            self.busy_changed.emit(False)
