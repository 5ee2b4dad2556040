"""The corpus mean and resample ablation read: a text file, one text a line (blank lines skipped)."""

from __future__ import annotations

from pathlib import Path

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.heads.names import MAX_CORPUS_LINES


def read_corpus(path: str | Path) -> list[str]:
    """The file's non-blank lines (at most ``MAX_CORPUS_LINES``); a one-line error for a missing, unreadable or
    empty file."""
    path = Path(path).expanduser()
    if not path.is_file():
        raise WorkbenchError(f"the corpus file does not exist: {path}")
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise WorkbenchError(f"cannot read the corpus file {path}: {exc.strerror}") from None
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        raise WorkbenchError(f"the corpus file {path} has no text")
    return lines[:MAX_CORPUS_LINES]
