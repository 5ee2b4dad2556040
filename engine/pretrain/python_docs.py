"""A corpus present on every machine: the English prose of Python's own documentation.

The standard library ships the reference topics ``pydoc`` shows
(``pydoc_data.topics``, about 0.47 MB). Their text mixes prose with code,
grammar rules and headings; ``prose_paragraphs`` keeps the paragraphs that
read as sentences (mostly letters, ending with a full stop, question or
exclamation mark) and joins each into one line. Each topic becomes one
document, so the corpus has document and sentence boundaries for objectives
that need them.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

PYTHON_DOCS_FILENAME = "python-docs.txt"
_UNDERLINE = re.compile(r"^([*=\-^~#\"'`+_.])\1{2,}$")
_SENTENCE_END = re.compile(r"[.!?][\"')\]]*$")
_MIN_WORDS = 6
_MIN_LETTER_FRACTION = 0.8


def _is_prose(paragraph: str) -> bool:
    if len(paragraph.split()) < _MIN_WORDS or not _SENTENCE_END.search(paragraph):
        return False
    if paragraph.startswith((">>>", "...", "::=")) or "::=" in paragraph:
        return False
    letters = sum(c.isalpha() or c.isspace() for c in paragraph)
    return letters >= _MIN_LETTER_FRACTION * len(paragraph)


def prose_paragraphs(text: str) -> list[str]:
    """The prose paragraphs of one topic, each joined into a single line."""
    paragraphs: list[str] = []
    current: list[str] = []
    for raw in text.splitlines() + [""]:
        line = raw.strip()
        if line and not _UNDERLINE.match(line):
            current.append(line)
            continue
        if current:
            paragraph = " ".join(current)
            if _is_prose(paragraph):
                paragraphs.append(paragraph)
            current = []
    return paragraphs


def python_docs_text() -> str:
    """The corpus text: one document per topic (sorted by name), documents separated by a blank line."""
    from pydoc_data.topics import topics

    documents = []
    for name in sorted(topics):
        paragraphs = prose_paragraphs(topics[name])
        if paragraphs:
            documents.append("\n".join(paragraphs))
    return "\n\n".join(documents) + "\n"


def python_docs_corpus(dest: Path) -> Path:
    """Write the Python-docs corpus and return its path; idempotent.

    ``dest`` is the file to write, or a folder (an existing one, or a path
    without a suffix) to write ``python-docs.txt`` into. An identical file is
    left untouched, so its modification time (part of the dataset cache key)
    stays the same and prepared datasets stay valid.
    """
    dest = Path(dest)
    target = dest / PYTHON_DOCS_FILENAME if dest.is_dir() or not dest.suffix else dest
    data = python_docs_text().encode("utf-8")
    if target.is_file() and target.stat().st_size == len(data) and target.read_bytes() == data:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp = tempfile.mkstemp(prefix=".python-docs-", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


__all__ = ["PYTHON_DOCS_FILENAME", "prose_paragraphs", "python_docs_corpus", "python_docs_text"]
