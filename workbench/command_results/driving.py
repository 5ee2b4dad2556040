"""Running a job generator to its end for a command: its ``Progress`` goes to the Python API's bar when one
is listening (``lm_workbench.runs.recorder.PROGRESS_OBSERVER``) and, unless ``quiet``, as lines on stderr."""

from __future__ import annotations

import sys
from typing import Any


def drive_quietly(steps: Any, quiet: bool = True, listener: Any = None) -> Any:
    """The job's result; partial results (meant for a window) are passed over. ``listener``: called with each
    ``Progress`` too (the CLI's in-place bar, ``StderrProgress``)."""
    from lm_workbench.engine.progress import Progress, iter_with_progress
    from lm_workbench.runs.recorder import PROGRESS_OBSERVER

    observer = PROGRESS_OBSERVER.get()
    last = None
    for report in iter_with_progress(steps):
        if isinstance(report, Progress):
            if observer is not None:
                observer(report)
            if listener is not None:
                listener(report)
            if not quiet and report.message:
                print(report.message, file=sys.stderr, flush=True)
            continue
        last = report
    return last
