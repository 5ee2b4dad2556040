"""The Python API's progress bar: tqdm's auto bar (a widget in Jupyter, text in a terminal) fed with the work's
events: a job's ``Progress`` (done of total, its message) and a training loop's ``StepsPlanned`` / ``StepMetrics``
(step of total, the loss). Shown only for work that lasts (tqdm's ``delay``): a quick call draws nothing.
Ctrl-C (Jupyter's interrupt) is the run's own: a recorded run catches it, is marked cancelled and can be resumed.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

DELAY_S = 1.0  # no bar for work shorter than this


class TqdmObserver:
    """Call it with events; ``close()`` ends the bar."""

    def __init__(self) -> None:
        self._bar: Any = None

    def _ensure(self, total: int | None) -> Any:
        if self._bar is None:
            from tqdm.auto import tqdm

            self._bar = tqdm(total=total, delay=DELAY_S, leave=False, dynamic_ncols=True)
        elif total and self._bar.total != total:
            self._bar.total = total
        return self._bar

    def __call__(self, event: Any) -> None:
        from lm_workbench.engine.progress import Progress

        name = type(event).__name__
        if isinstance(event, Progress):
            bar = self._ensure(event.total if event.total > 0 else None)
            if event.message:
                bar.set_description_str(event.message[:60], refresh=False)
            bar.n = max(0, int(event.done))
            bar.refresh()
        elif name == "StepsPlanned":
            self._ensure(int(event.total))
        elif name == "StepMetrics":
            bar = self._ensure(None)
            bar.n = int(event.step)
            bar.set_postfix(loss=f"{event.loss:.4f}")

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


@contextmanager
def progress_bar() -> Iterator[TqdmObserver]:
    """Within the block, jobs and recorded runs report to a tqdm bar (closed at the end)."""
    from lm_workbench.runs.recorder import PROGRESS_OBSERVER

    observer = TqdmObserver()
    token = PROGRESS_OBSERVER.set(observer)
    try:
        yield observer
    finally:
        PROGRESS_OBSERVER.reset(token)
        observer.close()
