"""What one tuning run keeps besides the loop's own state: its peak memory, its evaluations (saved in each
checkpoint, so a resumed run ends with an uninterrupted run's numbers) and each metric's best value."""

from __future__ import annotations

import json
import resource
import sys
from pathlib import Path

import torch

HISTORY_FILE = "finetune_history.json"  # in each checkpoint: the evaluations up to its step, the time so far

History = list[tuple[int, dict[str, float | None]]]


def _rss_mb() -> float:
    scale = 1024 * 1024 if sys.platform == "darwin" else 1024  # bytes on macOS, KiB on Linux
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale / 2**20


class PeakMemory:
    """The memory a run adds, in MiB: CUDA's peak allocation over the one at the start on a GPU, else the
    process's peak resident size over the one at the start."""

    def __init__(self, cuda: bool) -> None:
        self.cuda = cuda
        if cuda:
            torch.cuda.reset_peak_memory_stats()
        self.baseline = self._now()

    def _now(self) -> float:
        return torch.cuda.max_memory_allocated() / 2**20 if self.cuda else _rss_mb()

    def peak_mb(self) -> float:
        return self._now() - self.baseline if self.cuda else max(0.0, self._now() - self.baseline)


def read_history(checkpoint: Path) -> tuple[History, float]:
    """(the evaluations, the wall time) a checkpoint's run had when it was written; empty when not saved."""
    file = Path(checkpoint) / HISTORY_FILE
    if not file.is_file():
        return [], 0.0
    try:
        saved = json.loads(file.read_text(encoding="utf-8"))
        return [(int(step), {k: None if v is None else float(v) for k, v in values.items()})
                for step, values in saved["history"]], float(saved.get("wall_s", 0.0))
    except (OSError, ValueError, KeyError, TypeError):
        return [], 0.0


def write_history(checkpoint: Path, history: History, wall_s: float) -> None:
    if not Path(checkpoint).is_dir():  # pruned already: a newer checkpoint of another segment is kept
        return
    data = {"history": [[step, values] for step, values in history], "wall_s": wall_s}
    (Path(checkpoint) / HISTORY_FILE).write_text(json.dumps(data), encoding="utf-8")


def best_values(history: History) -> dict[str, float | None]:
    """Each metric's best value over the evaluations: the lowest ``validation_loss``, the highest of the others;
    None for a metric never defined (None or NaN at every evaluation)."""
    best: dict[str, float | None] = {}
    for _, values in history:
        for key, value in values.items():
            if value is None or value != value:  # undefined at this evaluation: never the best
                best.setdefault(key, None)
                continue
            better = min if key == "validation_loss" else max
            best[key] = value if best.get(key) is None else better(best[key], value)
    return best
