"""Growing metric series for plots that follow a run while it writes.

A ``Series`` keeps one metric's (step, time, value) triples in NumPy
buffers that double when full, so appending the rows of each poll is cheap
and the plot gets views of the filled part (no copy of the whole history).
``RunSeries`` holds one run's series by metric name and remembers the last
store ``rowid`` it has taken in, so the next read asks only for newer rows.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np

from lm_workbench.store.metrics_reader import MetricRow


class Series:
    """One metric's points in arrival order."""

    def __init__(self, capacity: int = 256) -> None:
        self._data = np.empty((3, capacity), dtype=np.float64)  # rows: step, time, value
        self._n = 0

    def __len__(self) -> int:
        return self._n

    def append(self, step: float, time: float, value: float) -> None:
        if self._n == self._data.shape[1]:
            grown = np.empty((3, 2 * self._n), dtype=np.float64)
            grown[:, : self._n] = self._data
            self._data = grown
        self._data[:, self._n] = (step, time, value)
        self._n += 1

    @property
    def steps(self) -> np.ndarray:
        return self._data[0, : self._n]

    @property
    def times(self) -> np.ndarray:
        return self._data[1, : self._n]

    @property
    def values(self) -> np.ndarray:
        return self._data[2, : self._n]


class RunSeries:
    """All metrics of one run, fed incrementally from ``MetricsReader.rows_after``."""

    def __init__(self, run_id: int) -> None:
        self.run_id = run_id
        self.last_rowid = 0
        self.start_time: float | None = None
        self.series: dict[str, Series] = {}

    def add_rows(self, rows: Iterable[MetricRow]) -> set[str]:
        """Take in new rows; return the names of the metrics that changed."""
        changed: set[str] = set()
        for row in rows:
            if self.start_time is None:
                self.start_time = row.time
            series = self.series.get(row.name)
            if series is None:
                series = self.series[row.name] = Series()
            series.append(row.step, row.time, row.value)
            changed.add(row.name)
            self.last_rowid = max(self.last_rowid, row.rowid)
        return changed

    def get(self, name: str) -> Series | None:
        return self.series.get(name)


def ema(values: np.ndarray, weight: float) -> np.ndarray:
    """Exponential moving average with bias correction (as TensorBoard's smoothing slider).

    ``s_t = w s_{t-1} + (1 - w) v_t`` from ``s_0 = 0``, divided by ``1 - w^t`` so
    the first points are not pulled towards zero. ``weight`` 0 returns the values.
    """
    values = np.asarray(values, dtype=np.float64)
    if weight <= 0 or values.size == 0:
        return values.copy()
    out = np.empty_like(values)
    acc = 0.0
    for i, v in enumerate(values):  # a Python loop: overlays hold thousands of points, not millions
        acc = weight * acc + (1.0 - weight) * v
        out[i] = acc / (1.0 - weight ** (i + 1))
    return out
