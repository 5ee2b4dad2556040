"""The interactive lane: analysis jobs in one worker thread, newest first.

A job is a function of a ``CancelToken`` that returns a value or a generator
(the engine's compute functions are generators that yield ``Progress`` and
``Partial`` and return their result). One job runs at a time; submitting a
new one cancels the running one (it stops at its next yield or
``cancel.check()``) and replaces any job still waiting, because in an
interactive view only the latest request matters. A job submitted with ``keep=True`` (a view's own long job,
such as training the tuned lens) is the exception: a newer submission waits behind it instead of cancelling it
(the newest waiting one still replaces the older); ``cancel(job)`` or ``cancel_current`` stops it.

Callbacks run on the worker thread. The Qt layer wraps them in signals, so
no widget is touched off the GUI thread; the CLI and tests use them as is.
"""

from __future__ import annotations

import itertools
import logging
import threading
import traceback
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Callable, Generator

from lm_workbench.engine.errors import Cancelled, WorkbenchError
from lm_workbench.engine.progress import CancelToken, Partial, Progress, drive

log = logging.getLogger(__name__)


class JobState(str, Enum):
    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"


@dataclass
class JobCallbacks:
    on_progress: Callable[[Progress], None] | None = None
    on_partial: Callable[[Any], None] | None = None
    on_done: Callable[[Any], None] | None = None
    on_error: Callable[[BaseException, str], None] | None = None  # (error, traceback text or "")
    on_cancelled: Callable[[], None] | None = None
    on_finally: Callable[[], None] | None = None


@dataclass
class Job:
    id: int
    name: str
    fn: Callable[[CancelToken], Any]
    callbacks: JobCallbacks
    cancel_token: CancelToken = field(default_factory=CancelToken)
    state: JobState = JobState.PENDING
    result: Any = None
    error: BaseException | None = None
    _finished: threading.Event = field(default_factory=threading.Event)
    keep: bool = False  # a newer submission waits behind it instead of cancelling it

    def cancel(self) -> None:
        self.cancel_token.cancel()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the job has ended; True if it did within the timeout."""
        return self._finished.wait(timeout)


def _call(callback: Callable[..., None] | None, *args: Any) -> None:
    if callback is None:
        return
    try:
        callback(*args)
    except Exception:  # a broken listener must not kill the lane
        log.exception("job callback failed")


class InteractiveLane:
    """One worker thread; a new submission cancels the stale one."""

    def __init__(self, name: str = "interactive-lane", on_thread_start: Callable[[], None] | None = None):
        self._name = name
        self._ids = itertools.count(1)
        self._lock = threading.Condition()
        self._pending: Job | None = None
        self._current: Job | None = None
        self._closed = False
        self._on_thread_start = on_thread_start
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self._thread.start()

    # ----------------------------------------------------------------- API
    def submit(self, fn: Callable[[CancelToken], Any], *, name: str = "job", keep: bool = False,
               **callbacks: Any) -> Job:
        job = Job(next(self._ids), name, fn, JobCallbacks(**callbacks), keep=keep)
        with self._lock:
            if self._closed:
                raise RuntimeError("the lane is shut down")
            if self._pending is not None:  # never started: drop it
                stale = self._pending
                stale.cancel_token.cancel()
                stale.state = JobState.CANCELLED
                _call(stale.callbacks.on_cancelled)
                _call(stale.callbacks.on_finally)
                stale._finished.set()
            if self._current is not None and not self._current.keep:
                self._current.cancel_token.cancel()
            self._pending = job
            self._lock.notify_all()
        return job

    def cancel(self, job: Job) -> None:
        """Stop ``job`` (running or waiting) at its next step; other jobs are left alone."""
        job.cancel_token.cancel()

    def cancel_current(self) -> None:
        with self._lock:
            for job in (self._pending, self._current):
                if job is not None:
                    job.cancel_token.cancel()

    @property
    def busy(self) -> bool:
        with self._lock:
            return self._current is not None or self._pending is not None

    @property
    def thread(self) -> threading.Thread:
        return self._thread

    def shutdown(self, timeout: float = 10.0) -> bool:
        """Cancel everything and stop the thread; True if it stopped in time."""
        with self._lock:
            self._closed = True
            for job in (self._pending, self._current):
                if job is not None:
                    job.cancel_token.cancel()
            self._lock.notify_all()
        self._thread.join(timeout)
        return not self._thread.is_alive()

    # -------------------------------------------------------------- worker
    def _loop(self) -> None:
        if self._on_thread_start is not None:
            self._on_thread_start()
        while True:
            with self._lock:
                while self._pending is None and not self._closed:
                    self._lock.wait()
                if self._pending is None and self._closed:
                    return
                job, self._pending = self._pending, None
                self._current = job
            try:
                self._run(job)
            finally:
                with self._lock:
                    self._current = None
                _call(job.callbacks.on_finally)
                job._finished.set()

    def _run(self, job: Job) -> None:
        cb = job.callbacks
        if job.cancel_token.cancelled:
            job.state = JobState.CANCELLED
            _call(cb.on_cancelled)
            return
        job.state = JobState.RUNNING
        try:
            value = job.fn(job.cancel_token)
            if isinstance(value, Generator):
                value = self._drive(job, value)
            job.cancel_token.check()
        except Cancelled:
            job.state = JobState.CANCELLED
            _call(cb.on_cancelled)
            return
        except WorkbenchError as exc:
            job.state, job.error = JobState.FAILED, exc
            _call(cb.on_error, exc, "")
            return
        except Exception as exc:  # a bug: keep the traceback for the log panel
            job.state, job.error = JobState.FAILED, exc
            text = traceback.format_exc()
            log.error("job %s failed:\n%s", job.name, text)
            _call(cb.on_error, exc, text)
            return
        job.state, job.result = JobState.DONE, value
        _call(cb.on_done, value)

    @staticmethod
    def _drive(job: Job, gen: Generator[Any, None, Any]) -> Any:
        """Run the job's generator (its cancel checked before every step): Progress to ``on_progress``,
        Partial to ``on_partial``; return its value."""
        cb = job.callbacks

        def report(item: Any) -> None:
            if isinstance(item, Progress):
                _call(cb.on_progress, item)
            elif isinstance(item, Partial):
                _call(cb.on_partial, item.value)

        return drive(gen, report, cancel=job.cancel_token)
