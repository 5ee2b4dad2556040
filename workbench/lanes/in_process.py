"""Running a long job in this process (the CLI, torchrun) but recorded like a lane job.

``record_in_process`` creates the run (queued) and records it as a lane's child does
(``run_context.recorded_run``: running with this pid, heartbeat, finished / cancelled / failed), lets the
first Ctrl-C cancel cleanly (``SigintCancels``; a second one interrupts at once) and re-raises a failure.
Pre-training and fine-tuning share it; each passes its own ``work``.
"""

from __future__ import annotations

import signal
import threading
from typing import Any, Callable

from engine.errors import Cancelled
from workbench.lanes.run_context import RunContext, recorded_run

INTERRUPTED = "interrupted (Ctrl-C)"


class EventToken:
    """A ``threading.Event`` as the engine's cancel token."""

    def __init__(self, event: threading.Event) -> None:
        self.event = event

    @property
    def cancelled(self) -> bool:
        return self.event.is_set()

    def check(self) -> None:
        if self.event.is_set():
            raise Cancelled()


class SigintCancels:
    """While active, the first Ctrl-C sets ``event`` (a clean cancel); a second one interrupts at once."""

    def __init__(self, event: threading.Event) -> None:
        self.event = event
        self.previous: Any = None

    def _handle(self, signum: int, frame: Any) -> None:
        if self.event.is_set():
            raise KeyboardInterrupt
        self.event.set()

    def __enter__(self) -> "SigintCancels":
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)


def record_in_process(store: Any, *, kind: str, name: str, model: str, method: str, params: dict[str, Any],
                      cli_command: str | None, work: Callable[[RunContext], dict[str, Any]],
                      when_cancelled: Callable[[int], dict[str, Any]] | None = None) -> dict[str, Any]:
    """Run ``work(ctx)`` as a recorded run in ``store`` (closed at the end); returns its summary.

    On Ctrl-C (or ``Cancelled``) the run is marked cancelled and ``when_cancelled(run_id)`` (default
    ``{"run_id", "cancelled": True}``) is returned; any other error marks it failed and is re-raised.
    """
    cancel = threading.Event()
    try:
        run_id = store.create_run(kind, name=name, model=model, method=method, params=params,
                                  cli_command=cli_command, status="queued")
        try:
            with SigintCancels(cancel), recorded_run(store, run_id, cancel, cancelled_note=INTERRUPTED,
                                                     interrupted_note=INTERRUPTED) as ctx:
                return work(ctx)
        except (Cancelled, KeyboardInterrupt):
            return when_cancelled(run_id) if when_cancelled else {"run_id": run_id, "cancelled": True}
    finally:
        store.close()
