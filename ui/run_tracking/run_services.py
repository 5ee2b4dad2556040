"""The window's access to long runs: ONE long-run lane, the run store, a metrics reader.

Each is made on first use, so a window that never trains starts no thread
and opens no file; ``shutdown`` (called when the window closes) cancels the
running job (cooperatively, then terminating it after ``grace_s``), ends the
lane's dispatcher thread and closes the store connections. Views share one
``RunServices``, so they all see the same lane and the same store file
(``lm_workbench.paths.runs_db_path()`` at the time of first use).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from lm_workbench.store.metrics_reader import MetricsReader

CLOSE_GRACE_S = 10.0  # a cancelled pre-training run saves a checkpoint within this


def _default_path() -> Path:
    from lm_workbench.paths import runs_db_path

    return runs_db_path()


class RunServices:
    """Lazily created lane, store and reader for one window."""

    def __init__(self, path_fn: Callable[[], Path] = _default_path) -> None:
        self._path_fn = path_fn
        self._path: Path | None = None
        self._lane: Any = None
        self._store: Any = None
        self._reader: MetricsReader | None = None
        self.closed = False

    @property
    def path(self) -> Path:
        if self._path is None:
            self._path = Path(self._path_fn())
        return self._path

    @property
    def lane(self) -> Any:
        """The ``LongRunLane`` (its dispatcher thread starts now, the first time)."""
        if self.closed:
            raise RuntimeError("the window is closing: no new runs")
        if self._lane is None:
            from lm_workbench.lanes.long_run_lane import LongRunLane

            self._lane = LongRunLane(self.path)
        return self._lane

    @property
    def has_lane(self) -> bool:
        return self._lane is not None

    @property
    def running_run_id(self) -> int | None:
        """The run the lane's child process runs now (None without a lane: asking starts none)."""
        return self._lane.running_run_id if self._lane is not None and not self.closed else None

    @property
    def store(self) -> Any:
        """A ``RunStore`` for reads and deletes on the Qt thread."""
        if self._store is None:
            from lm_workbench.store.run_store import RunStore

            self._store = RunStore(self.path)
        return self._store

    @property
    def reader(self) -> MetricsReader:
        if self._reader is None:
            self.store  # noqa: B018 - creates the file and its tables first
            self._reader = MetricsReader(self.path)
        return self._reader

    def shutdown(self, grace_s: float = CLOSE_GRACE_S) -> None:
        """Cancel what runs, stop the lane's thread, close the files. Safe to call twice."""
        if self.closed:
            return
        self.closed = True
        if self._lane is not None:
            self._lane.shutdown(cancel_running=True, grace_s=grace_s, timeout=grace_s + 15.0)
        if self._reader is not None:
            self._reader.close()
        if self._store is not None:
            self._store.close()
