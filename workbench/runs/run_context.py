"""What a recorded run's body sees (``RunContext``), how a run is recorded (``recorded_run``), and a long-run
lane child's bootstrap (``run_in_child``). The run store's ``create_run`` is called from ``lm_workbench.runs``
alone (``create_queued_run`` here, ``execute.record`` for computed runs): an architecture test checks it.

A job is a plain function ``target(ctx, **kwargs)``; ``ctx`` is a
``RunContext``: the run id, the run store, and a cancel flag. It also
satisfies the engine's cancel-token protocol (``cancelled`` and ``check()``),
so it can be handed straight to engine loops.

This module is imported by every spawned child, so it must stay light: no
torch, no transformers, nothing the job itself does not ask for.
"""

from __future__ import annotations

import importlib
import logging
import os
import threading
import traceback
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, Protocol

from lm_workbench.engine.errors import Cancelled
from lm_workbench.engine.progress import CancelToken
from lm_workbench.store.run_store import RunStore

HEARTBEAT_S = 2.0

log = logging.getLogger(__name__)


class EventLike(Protocol):
    """A ``threading.Event`` or ``multiprocessing.Event``."""

    def is_set(self) -> bool: ...

    def set(self) -> None: ...


class RunContext(CancelToken):
    """A running job's handle on its run: log metrics, heartbeat, artifacts, and the engine's cancel token over
    ``cancel_event`` (``cancelled``, ``check``)."""

    def __init__(self, run_id: int, store: RunStore, cancel_event: EventLike) -> None:
        super().__init__(cancel_event)
        self.run_id = run_id
        self.store = store

    @property
    def cancel_event(self) -> EventLike:
        """The lane's cancel event this token reads (set it to cancel the run)."""
        return self._event

    def log(self, step: int, **metrics: float) -> None:
        """Record named values at ``step`` (one transaction)."""
        self.store.log_metrics(self.run_id, step, metrics)

    def log_dict(self, step: int, metrics: dict[str, float]) -> None:
        """Like ``log``, for names that are not identifiers (``"loss/train"``)."""
        self.store.log_metrics(self.run_id, step, metrics)

    def set_total_steps(self, total: int) -> None:
        """Record the run's planned length in optimizer steps (what "step k of n" and the time left read)."""
        self.store.set_total_steps(self.run_id, total)

    def heartbeat(self) -> None:
        """Record that the job is alive (a background thread also does this)."""
        self.store.heartbeat(self.run_id)

    check_cancel = CancelToken.check  # raises ``Cancelled`` once a cancel was requested

    def add_artifact(self, name: str, kind: str, path: str | Path,
                     sha256: str | None = None) -> int:
        """Record a file the job produced; return the artifact id."""
        return self.store.add_artifact(self.run_id, name, kind, path, sha256)


class HeartbeatThread(threading.Thread):
    """Writes the run's heartbeat every ``interval`` seconds until stopped."""

    def __init__(self, store: RunStore, run_id: int, interval: float = HEARTBEAT_S) -> None:
        super().__init__(name=f"heartbeat-{run_id}", daemon=True)
        self.store, self.run_id, self.interval = store, run_id, interval
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.wait(self.interval):
            try:
                self.store.heartbeat(self.run_id)
            except Exception:  # a busy or closed store must not kill the job
                pass

    def stop(self) -> None:
        self._stop_event.set()
        self.join(timeout=self.interval + 1.0)


def resolve_target(target: str) -> Callable[..., Any]:
    """Import ``"package.module:function"`` and return the function."""
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"job target must look like 'package.module:function', got {target!r}")
    obj: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    if not callable(obj):
        raise TypeError(f"job target {target!r} is not callable")
    return obj


@contextmanager
def recorded_run(store: RunStore, run_id: int, cancel_event: EventLike, *, heartbeat_s: float = HEARTBEAT_S,
                 cancelled_note: str | None = None,
                 interrupted_note: str = "interrupted (KeyboardInterrupt)") -> Iterator[RunContext]:
    """The one way a job's run is recorded, in a lane's child or in this process (the CLI, torchrun).

    Marks the run started (with this pid), heartbeats while the body runs, then marks it finished, cancelled
    (``Cancelled``: ``cancelled_note``; Ctrl-C: ``interrupted_note``) or failed (``failure_note``: a user
    error's or a machine fault's one line, a bug as ``"Type: message"``). The exception goes on to the
    caller, which decides what the user sees. A store that cannot record the end (the disk that failed the
    job may fail this too) is logged; the run is then marked by whoever lists it next.
    """
    store.start_run(run_id, pid=os.getpid())
    beat = HeartbeatThread(store, run_id, heartbeat_s)
    beat.start()
    status, note = "finished", None
    try:
        yield RunContext(run_id, store, cancel_event)
    except Cancelled:
        status, note = "cancelled", cancelled_note
        raise
    except KeyboardInterrupt:
        status, note = "cancelled", interrupted_note
        raise
    except BaseException as exc:
        status, note = "failed", failure_note(exc)
        raise
    finally:
        beat.stop()
        try:
            store.finish_run(run_id, status, note, if_status=("queued", "running"))
        except Exception:  # noqa: BLE001 - the job's own error (if any) is what the caller must see
            log.exception("could not record that run %s ended %s", run_id, status)


def create_queued_run(store: RunStore, kind: str, *, name: str | None = None, model: str | None = None,
                      method: str | None = None, params: dict[str, Any] | None = None,
                      cli_command: str | None = None, provenance: dict[str, Any] | None = None,
                      pid: int | None = None) -> int:
    """A new run row, ``queued``, with the columns the runs browser shows; its id."""
    return store.create_run(kind, name=name, model=model, method=method, params=params, provenance=provenance,
                            cli_command=cli_command, status="queued", pid=pid)


def failure_note(exc: BaseException) -> str:
    """What a failed run records: the one line of a user error or a fault of the machine (a full disk, a
    vanished file: ``lm_workbench.faults``), else ``"Type: message"`` (a bug; its traceback is in the log)."""
    from lm_workbench.faults import describe

    line = describe(exc)
    return " ".join(line.split()) if line is not None else f"{type(exc).__name__}: {exc}"


def run_in_child(store_path: str, run_id: int, target: str, kwargs: dict[str, Any],
                 cancel_event: EventLike, heartbeat_s: float = HEARTBEAT_S) -> None:
    """The child process's entry point: run one job (``target(ctx, **kwargs)``) as a recorded run.

    How it ended is recorded by ``recorded_run``; a failure's traceback goes to the log file (to the
    child's stderr when there is none). A death this code cannot see is left to the parent.
    """
    from lm_workbench.logs import setup_logging

    logged = setup_logging() is not None
    store = RunStore(store_path)
    try:
        with recorded_run(store, run_id, cancel_event, heartbeat_s=heartbeat_s) as ctx:
            resolve_target(target)(ctx, **kwargs)
    except (Cancelled, KeyboardInterrupt):
        pass
    except BaseException as exc:  # noqa: BLE001 - recorded as failed above
        log.error("run %s (%s) failed", run_id, target, exc_info=exc)
        if not logged:
            traceback.print_exc()
    finally:
        store.close()
