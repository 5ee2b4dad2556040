"""The long-run lane: pre-training, fine-tuning and other long jobs, each in its
own child process, one at a time, first in first out.

A job is ``"package.module:function"`` plus keyword arguments; the child
(started with the ``spawn`` method, so it shares no state with the window)
calls ``function(ctx, **kwargs)`` with a ``RunContext`` and records the run's
progress and outcome in the run store itself. A background dispatcher thread
here starts the next queued job when the previous process has exited, and
records the outcome of a child that died without saying (killed, segfault,
out of memory). Nothing here calls back into the UI: it polls the store.
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
import pickle
import signal
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lm_workbench.runs.run_context import create_queued_run, run_in_child
from lm_workbench.store.migrations import FINAL_STATUSES
from lm_workbench.store.run_store import RunStore

_ACTIVE = ("queued", "running")


@dataclass
class _Job:
    """A submitted job waiting in the queue."""

    run_id: int
    target: str
    kwargs: dict[str, Any]


@dataclass
class _Running:
    """The job whose child process is alive, and its cancel state."""

    job: _Job
    process: Any  # multiprocessing.context.SpawnProcess
    cancel_event: Any  # multiprocessing.synchronize.Event
    cancel_deadline: float | None = None  # time.monotonic() after which it is terminated
    grace_s: float = 0.0
    hard_cancelled: bool = field(default=False)


def describe_exit(code: int | None) -> str:
    """``"exit code 3"`` or ``"exit code -9 (SIGKILL)"``."""
    if code is not None and code < 0:
        try:
            return f"exit code {code} ({signal.Signals(-code).name})"
        except ValueError:
            pass
    return f"exit code {code}"


class LongRunLane:
    """Runs long jobs in spawned child processes, one at a time from a FIFO queue."""

    def __init__(self, store_path: str | Path, *, poll_s: float = 0.05,
                 kill_wait_s: float = 5.0) -> None:
        self.store_path = Path(store_path)
        self.poll_s = poll_s
        self.kill_wait_s = kill_wait_s
        self._store = RunStore(self.store_path)
        self._mp = multiprocessing.get_context("spawn")
        self._cond = threading.Condition()
        self._queue: deque[_Job] = deque()
        self._current: _Running | None = None
        self._closed = False
        self._thread = threading.Thread(target=self._dispatch, name="long-run-lane", daemon=True)
        self._thread.start()
        atexit.register(self._shutdown_at_exit)

    # -- public API --------------------------------------------------------

    def submit(self, target: str, kwargs: dict[str, Any] | None = None, *, kind: str,
               name: str | None = None, model: str | None = None, method: str | None = None,
               params: dict[str, Any] | None = None, cli_command: str | None = None,
               provenance: dict[str, Any] | None = None) -> int:
        """Queue ``target(ctx, **kwargs)``; return the new run's id (status ``queued``).

        ``params`` defaults to ``kwargs``. Raises ValueError for a malformed
        target and TypeError for arguments that cannot be sent to a child.
        """
        module_name, sep, attr = target.partition(":")
        if not (sep and module_name and attr):
            raise ValueError(f"job target must look like 'package.module:function', got {target!r}")
        kwargs = dict(kwargs or {})
        try:
            pickle.dumps(kwargs)
        except Exception as exc:
            raise TypeError(f"job arguments cannot be sent to a child process: {exc}") from exc
        with self._cond:
            if self._closed:
                raise RuntimeError("the long-run lane is shut down")
            run_id = create_queued_run(
                self._store, kind, name=name, model=model, method=method,
                params=kwargs if params is None else params, provenance=provenance,
                cli_command=cli_command, pid=os.getpid())
            self._queue.append(_Job(run_id, target, kwargs))
            self._cond.notify_all()
        return run_id

    def cancel(self, run_id: int, grace_s: float = 10.0) -> bool:
        """Cancel a run; True if it was queued or running here.

        A queued run is marked cancelled at once. A running one gets its cancel
        flag set; if its process has not exited ``grace_s`` seconds later it is
        terminated (then killed) and marked cancelled. Does not block.
        """
        with self._cond:
            for job in self._queue:
                if job.run_id == run_id:
                    self._queue.remove(job)
                    self._store.finish_run(run_id, "cancelled", if_status=_ACTIVE)
                    self._cond.notify_all()
                    return True
            running = self._current
            if running is not None and running.job.run_id == run_id:
                running.cancel_event.set()
                deadline = time.monotonic() + max(0.0, grace_s)
                if running.cancel_deadline is None or deadline < running.cancel_deadline:
                    running.cancel_deadline, running.grace_s = deadline, grace_s
                self._cond.notify_all()
                return True
        # A queued row nobody runs (e.g. left by a crashed session).
        return self._store.finish_run(run_id, "cancelled", if_status=("queued",))

    def status(self, run_id: int) -> str:
        """The run's status in the store."""
        return self._store.status(run_id)

    def wait(self, run_id: int, timeout: float | None = None) -> str:
        """Block until the run has a final status and its process has exited; return it.

        Raises TimeoutError when ``timeout`` seconds pass first.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while True:
                status = self._store.status(run_id)
                if status in FINAL_STATUSES and not self._is_active(run_id):
                    return status
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    raise TimeoutError(f"run {run_id} is still {status} after {timeout} s")
                self._cond.wait(0.1 if remaining is None else min(0.1, remaining))

    @property
    def running_run_id(self) -> int | None:
        """The run whose process is alive now, if any."""
        with self._cond:
            return None if self._current is None else self._current.job.run_id

    def shutdown(self, cancel_running: bool = True, grace_s: float = 10.0,
                 timeout: float | None = None) -> None:
        """Stop the lane: queued runs are cancelled; the running one is cancelled
        (``cancel_running``) or allowed to finish; then the dispatcher ends."""
        with self._cond:
            if self._closed:
                return
            self._closed = True
            dropped = list(self._queue)
            self._queue.clear()
            running = self._current
            self._cond.notify_all()
        for job in dropped:
            self._store.finish_run(job.run_id, "cancelled", "the long-run lane shut down",
                                   if_status=_ACTIVE)
        if cancel_running and running is not None:
            self.cancel(running.job.run_id, grace_s)
        self._thread.join(timeout)
        atexit.unregister(self._shutdown_at_exit)
        if not self._thread.is_alive():
            self._store.close()

    def __enter__(self) -> "LongRunLane":
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()

    # -- dispatcher --------------------------------------------------------

    def _is_active(self, run_id: int) -> bool:
        if self._current is not None and self._current.job.run_id == run_id:
            return True
        return any(job.run_id == run_id for job in self._queue)

    def _shutdown_at_exit(self) -> None:
        self.shutdown(cancel_running=True, grace_s=2.0, timeout=10.0)

    def _dispatch(self) -> None:
        """Start queued jobs one after another until the lane shuts down."""
        while True:
            with self._cond:
                while not self._queue and not self._closed:
                    self._cond.wait()
                if not self._queue:
                    return
                job = self._queue.popleft()
                event = self._mp.Event()
                process = self._mp.Process(
                    target=run_in_child, name=f"lm-workbench-run-{job.run_id}",
                    args=(str(self.store_path), job.run_id, job.target, job.kwargs, event))
                running = _Running(job, process, event)
                self._current = running
            try:
                process.start()
            except Exception as exc:  # noqa: BLE001 - recorded on the run
                self._store.finish_run(job.run_id, "failed",
                                       f"could not start a process: {type(exc).__name__}: {exc}",
                                       if_status=_ACTIVE)
            else:
                self._supervise(running)
            with self._cond:
                self._current = None
                self._cond.notify_all()

    def _supervise(self, running: _Running) -> None:
        """Wait for the child to exit, terminating it once a cancel's grace runs out."""
        process = running.process
        while process.exitcode is None:
            process.join(self.poll_s)
            with self._cond:
                deadline = running.cancel_deadline
            if (process.exitcode is None and deadline is not None
                    and time.monotonic() >= deadline and not running.hard_cancelled):
                running.hard_cancelled = True
                process.terminate()
                process.join(self.kill_wait_s)
                if process.exitcode is None:
                    process.kill()
                    process.join()
        self._settle(running, process.exitcode)
        process.close()

    def _settle(self, running: _Running, code: int | None) -> None:
        """Record the outcome of a child that exited without recording its own."""
        run_id = running.job.run_id
        try:
            if self._store.status(run_id) in FINAL_STATUSES:
                return
        except KeyError:
            return  # the run was deleted meanwhile
        if running.hard_cancelled:
            self._store.finish_run(
                run_id, "cancelled",
                f"did not stop within {running.grace_s:g} s of the cancel request; "
                f"terminated ({describe_exit(code)})", if_status=_ACTIVE)
        else:
            self._store.finish_run(
                run_id, "failed", f"the process ended without reporting ({describe_exit(code)})",
                if_status=_ACTIVE)
