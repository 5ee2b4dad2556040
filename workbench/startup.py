"""What the application does once at start, before any view opens."""

from __future__ import annotations

import logging

from workbench.paths import runs_db_path
from workbench.store import RunStore
from workbench.store.run_store import STALE_HEARTBEAT_S

log = logging.getLogger(__name__)


def recover_interrupted_runs(stale_after_s: float = STALE_HEARTBEAT_S) -> list[int]:
    """Mark runs whose process died without saying so (no heartbeat, no pid) as interrupted.

    Returns their ids so the window can say so; nothing they saved is touched.
    (``RunStore.list_runs`` applies the same rule before every listing.)
    A store that cannot be opened is logged and skipped: the window must open.
    """
    try:
        store = RunStore(runs_db_path())
    except Exception as exc:  # a locked or damaged store must not block start-up
        log.warning("could not open the run store: %s", exc)
        return []
    try:
        return store.mark_interrupted(stale_after_s=stale_after_s)
    finally:
        store.close()
