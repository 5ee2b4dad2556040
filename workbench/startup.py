"""What the application does once at start, before any view opens: open the run store and tidy it.

Opening the store is where its faults show (``lm_workbench.store``): a damaged one is set aside and
rebuilt, a newer one opens read-only; each says so in one line through ``lm_workbench.notices``, which
the window shows in its message bar. A store that cannot be opened at all (a data folder that
cannot be written, a disk that failed) gives ``StoreAtStart.problem``, one line; the window opens anyway.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from lm_workbench.paths import runs_db_path
from lm_workbench.store import RunStore
from lm_workbench.store.run_store import STALE_HEARTBEAT_S

log = logging.getLogger(__name__)


@dataclass
class StoreAtStart:
    """What opening the run store at start found."""

    interrupted: list[int] = field(default_factory=list)  # runs just marked interrupted
    problem: str | None = None  # one line when the store could not be opened


def check_run_store(stale_after_s: float = STALE_HEARTBEAT_S) -> StoreAtStart:
    """Open the store (healing a damaged one), and mark runs whose process died without saying so
    (no heartbeat, no pid) as interrupted; nothing they saved is touched.
    (``RunStore.list_runs`` applies the same rule before every listing.)"""
    from lm_workbench.faults import user_line

    try:
        path = runs_db_path()
        store = RunStore(path)
    except Exception as exc:  # a locked or unusable store must not block start-up
        log.warning("could not open the run store", exc_info=exc)
        return StoreAtStart(problem=user_line(exc))
    try:
        return StoreAtStart(interrupted=store.mark_interrupted(stale_after_s=stale_after_s))
    except Exception as exc:  # noqa: BLE001 - as above
        log.warning("could not tidy the run store", exc_info=exc)
        return StoreAtStart(problem=user_line(exc))
    finally:
        store.close()


def recover_interrupted_runs(stale_after_s: float = STALE_HEARTBEAT_S) -> list[int]:
    """The ids of the runs ``check_run_store`` marked interrupted (so the window can say so)."""
    return check_run_store(stale_after_s).interrupted
