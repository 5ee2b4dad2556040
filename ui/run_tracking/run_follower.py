"""Following one run in the store: new metric rows, status, progress and an ETA.

A ``QTimer`` (500 ms) reads only the rows written since the last tick
(``MetricsReader.rows_after``) and the run's row; both are small WAL reads
that do not wait for the child process writing them. The follower emits what
changed and stops polling once the run has a final status (after one last
read, so the final numbers are in).

The run's length is the one its loop recorded (the run's ``total_steps``,
written when training starts: a fine-tuning run's length depends on its
data), else the one the caller passed to ``follow``. ``describe_progress``
is the one wording of where a run stands ("step 10 of 60 · about 0:42
left"), for the views that follow runs and the window's status bar.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from lm_workbench.store.migrations import FINAL_STATUSES

POLL_MS = 500


@dataclass
class RunProgress:
    """Where a followed run stands."""

    status: str
    step: int
    total: int
    eta_s: float | None
    tokens_per_s: float | None
    error: str | None

    @property
    def fraction(self) -> float:
        return min(1.0, self.step / self.total) if self.total > 0 else 0.0

    @property
    def determinate(self) -> bool:
        """Whether a bar can show how far along it is (its length is known)."""
        return self.total > 0


def describe_progress(progress: RunProgress) -> str:
    """"step 10 of 60 · about 0:42 left" (the step alone while the length is unknown; "" before a step)."""
    if not progress.step:
        return ""
    parts = [f"step {progress.step:,} of {progress.total:,}" if progress.total > 0 else f"step {progress.step:,}"]
    if progress.eta_s is not None:
        parts.append(f"about {format_eta(progress.eta_s)} left")
    return " · ".join(parts)


def format_eta(seconds: float | None) -> str:
    if seconds is None:
        return ""
    seconds = max(0, int(round(seconds)))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class RunFollower(QObject):
    """Polls the store for one run; ``rows`` with the new metric rows, ``progress`` with its state."""

    rows = Signal(int, object)  # run id, list[MetricRow]
    progress = Signal(int, object)  # run id, RunProgress
    ended = Signal(int, str)  # run id, final status

    def __init__(self, services: Any, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self.run_id: int | None = None
        self.total = 0
        self.last_rowid = 0
        self._first: tuple[int, float] | None = None  # (step, time) of the first training step seen
        self._last: tuple[int, float] | None = None
        self._tokens_per_s: float | None = None
        self.timer = QTimer(self)
        self.timer.setInterval(POLL_MS)
        self.timer.timeout.connect(self.poll)

    def follow(self, run_id: int, total_steps: int = 0) -> None:
        """Poll ``run_id``; ``total_steps`` is its length when the caller knows it (0: read from the run once
        its loop records it)."""
        self.run_id, self.total, self.last_rowid = run_id, int(total_steps), 0
        self._first = self._last = None
        self._tokens_per_s = None
        self.timer.start()
        self.poll()

    def stop(self) -> None:
        self.timer.stop()

    def poll(self) -> None:
        run_id = self.run_id
        if run_id is None or self.services.closed:
            self.timer.stop()
            return
        try:
            row = self.services.store.get_run(run_id)
        except KeyError:  # deleted from the runs browser
            self.timer.stop()
            return
        status = str(row["status"])
        if row.get("total_steps"):  # the loop's own count wins (a resumed or data-sized run)
            self.total = int(row["total_steps"])
        new = self.services.reader.rows_after(run_id, self.last_rowid)
        if new:
            self.last_rowid = new[-1].rowid
            for r in new:
                if r.name == "loss":
                    self._first = self._first or (r.step, r.time)
                    self._last = (r.step, r.time)
                elif r.name == "tokens_per_s":
                    self._tokens_per_s = r.value
            self.rows.emit(run_id, new)
        step = self._last[0] if self._last else 0
        self.progress.emit(run_id, RunProgress(status, step, self.total, self._eta(status), self._tokens_per_s,
                                               row.get("error")))
        if status in FINAL_STATUSES:
            self.timer.stop()
            self.ended.emit(run_id, status)

    def _eta(self, status: str) -> float | None:
        """Seconds left at the pace of the steps so far (measured from the first logged step)."""
        if status != "running" or self._first is None or self._last is None or self.total <= 0:
            return None
        (s0, t0), (s1, t1) = self._first, self._last
        if s1 <= s0 or t1 <= t0:
            return None
        rate = (s1 - s0) / (t1 - t0)  # steps per second
        return max(0.0, (self.total - s1) / rate - (time.time() - t1))
