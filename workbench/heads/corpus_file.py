"""The corpus mean and resample ablation read: a text file, one text a line (blank lines skipped)."""

from __future__ import annotations

from pathlib import Path

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.heads.names import MAX_CORPUS_LINES
from lm_workbench.engine.text_input import read_text_file


def read_corpus(path: str | Path) -> list[str]:
    """The file's non-blank lines (at most ``MAX_CORPUS_LINES``), read by the checked reader
    (``lm_workbench.engine.text_input``); a one-line error for a missing, unreadable or empty file, and for one
    that is not text (a binary file, bytes that are not UTF-8)."""
    path = Path(path).expanduser()
    if not path.is_file():
        raise WorkbenchError(f"the corpus file does not exist: {path}")
    text = read_text_file(path)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        raise WorkbenchError(f"the corpus file {path} has no text")
    return lines[:MAX_CORPUS_LINES]
