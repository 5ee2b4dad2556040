"""Argument checks and notes the commands share, whichever front end runs them (the CLI re-exports them from
``lm_workbench.cli.common``): each refusal a ``WorkbenchError`` with one line."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Callable, TypeVar

from lm_workbench.engine.errors import WorkbenchError

T = TypeVar("T")


def positive(value: int, flag: str) -> int:
    """``value`` of the option ``flag``, checked: at least 1."""
    if value < 1:
        raise WorkbenchError(f"{flag} must be at least 1, not {value}")
    return value


def positive_k(k: int) -> int:
    """``--k``, checked: at least 1."""
    return positive(k, "--k")


def output_file(path: str, suffix: str, what: str, *, ignore_case: bool = False) -> Path:
    """``--out``, checked before any work: it ends in ``suffix`` (``what``: "an .npz file") and its folder exists."""
    out = Path(path)
    found = out.suffix.lower() if ignore_case else out.suffix
    if found != suffix:
        raise WorkbenchError(f"--out must name {what}, not {out.name!r}")
    if not out.parent.exists():
        raise WorkbenchError(f"the folder for --out does not exist: {out.parent}")
    return out


def write_or_fail(out: Path, write: Callable[[], T]) -> T:
    """``write()``; an ``OSError`` becomes a one-line ``cannot write <out>`` error."""
    try:
        return write()
    except OSError as exc:
        raise WorkbenchError(f"cannot write {out}: {exc.strerror}") from None


def note(message: str) -> None:
    """``note: <message>`` on stderr: something the user should know about a result."""
    print(f"note: {message}", file=sys.stderr)


def say_read_report(report: Any, quiet: bool) -> None:
    """``note: <file>: read N rows, skipped K (first: line L: reason)`` on stderr: always when rows were skipped or
    changed, else unless ``quiet`` (the command prints --json). ``report``: a data reader's ``ReadReport`` or None."""
    if report is not None and (report.rows_skipped or report.notes or not quiet):
        note(f"{Path(report.source).name}: {report.summary()}")


def note_window(notes: Any) -> None:
    """One ``note:`` line on stderr per "tokens a–b of n" note: the text was longer than the model's window."""
    for line in notes or ():
        note(f"the text is longer than the model's window: read {line}")
