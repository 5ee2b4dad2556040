"""What a view running a row-by-row sweep (Patching, Heads) shows as it goes: the progress bar, a failure in one
line (a user's error) or with the traceback (a fault), and what a cancel kept."""

from __future__ import annotations

from typing import Any

from lm_workbench.engine.progress import Progress


def show_progress(bar: Any, progress: Progress) -> None:
    bar.setRange(0, max(1, progress.total))
    bar.setValue(progress.done)
    bar.setFormat(progress.message or "%p%")


def show_finished(bar: Any) -> None:
    """The bar full: a sweep can end without a last progress report (the same metric in both runs: nothing to
    sweep), and a bar left at 0 % beside "12 of 12 layers done" reads as stuck."""
    bar.setRange(0, max(1, bar.maximum()))
    bar.setValue(bar.maximum())
    bar.setFormat("done")


def show_failure(notice: Any, ctx: Any, exc: BaseException, tb: str, what: str) -> None:
    """A ``WorkbenchError`` without a traceback is the user's: its one line; anything else: ``what`` could not be
    computed, and the error with its traceback in the window's message bar."""
    from lm_workbench.engine.errors import WorkbenchError

    if isinstance(exc, WorkbenchError) and not tb:
        notice.show_message(str(exc), "warning")
        return
    notice.show_message(f"{what} could not be computed (see the message above).", "warning")
    if ctx is not None:
        ctx.show_error(exc, tb)


def show_cancelled(notice: Any, done: int, unit: str) -> None:
    """A cancelled sweep keeps the ``done`` rows it computed (``unit``: "row", "layer")."""
    notice.show_message(f"Cancelled after {done} {unit}{'s' if done != 1 else ''}; those rows are shown.", "info")
