"""Small, incremental reads of the run store for views that follow runs live.

``RunStore.metrics`` returns every row of a run; a view polling twice a
second needs only the rows written since its last look. ``MetricsReader``
keeps its own query-only SQLite connection to the same file and asks for
rows after the last ``rowid`` it has seen. In WAL mode a reader never waits
for the writer (the child process logging metrics), so each read takes a
millisecond or two and can run on the Qt thread.
"""

from __future__ import annotations

import math
import sqlite3
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class MetricRow:
    """One logged value."""

    rowid: int
    step: int
    name: str
    value: float
    time: float


class MetricsReader:
    """Query-only access to the ``metrics`` table of a run store file."""

    def __init__(self, path: str | Path, busy_timeout_s: float = 2.0) -> None:
        self.path = Path(path)
        self._conn = sqlite3.connect(str(self.path), timeout=busy_timeout_s)
        self._conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_s * 1000)}")
        self._conn.execute("PRAGMA query_only = ON")

    def close(self) -> None:
        self._conn.close()

    def rows_after(self, run_id: int, after_rowid: int = 0, limit: int = 20_000) -> list[MetricRow]:
        """The run's rows written after ``after_rowid``, oldest first (at most ``limit``)."""
        cur = self._conn.execute(
            "SELECT rowid, step, name, value, time FROM metrics WHERE run_id = ? AND rowid > ? "
            "ORDER BY rowid LIMIT ?", [run_id, after_rowid, limit])
        return [MetricRow(int(r[0]), int(r[1] or 0), str(r[2]), math.nan if r[3] is None else float(r[3]),
                          float(r[4] or 0.0))  # a NULL value: not computable there (NaN in, NULL stored)
                for r in cur.fetchall()]

    def summaries(self, run_ids: list[int] | None = None) -> dict[int, dict[str, float]]:
        """Per run (all, or ``run_ids``): the last value of each metric, plus ``"_steps"``
        (the largest step logged). Uses the (run_id, name, step) index only."""
        where, args = "", []
        if run_ids is not None:
            if not run_ids:
                return {}
            where = f"WHERE run_id IN ({', '.join('?' * len(run_ids))})"
            args = [int(r) for r in run_ids]
        out: dict[int, dict[str, float]] = {}
        cur = self._conn.execute(
            "SELECT m.run_id, m.name, m.value FROM metrics m JOIN "
            f"(SELECT run_id, name, MAX(rowid) AS last FROM metrics {where} GROUP BY run_id, name) l "
            "ON m.rowid = l.last", args)
        for run_id, name, value in cur.fetchall():
            if value is None:  # not computable at its last step (NaN is stored as NULL): no number to show
                continue
            out.setdefault(int(run_id), {})[str(name)] = float(value)
        cur = self._conn.execute(f"SELECT run_id, MAX(step) FROM metrics {where} GROUP BY run_id", args)
        for run_id, steps in cur.fetchall():
            out.setdefault(int(run_id), {})["_steps"] = float(steps or 0)
        return out
