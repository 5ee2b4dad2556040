"""The course corpus: one fixed English text shipped in the package, the same on every machine.

It is the English prose of the reference topics ``pydoc`` shows (``pydoc_data.topics``) as Python 3.11.7
ships them, extracted once by ``prose_paragraphs`` and saved as ``data/python-docs.txt`` (about 0.3 MB,
47,000 words, 1,300 paragraphs; SHA-256 in ``PYTHON_DOCS_SHA256``). Its source is the Python documentation,
Copyright (c) 2001 Python Software Foundation, under the PSF License Agreement (version 2), a permissive licence
that allows copying and redistribution with the copyright notice; the notice is in
``packaging/licenses/README.txt``. Earlier versions read ``pydoc_data`` of the running Python, which changes
with the Python version (issue 48); the shipped file does not.

``prose_paragraphs`` keeps the paragraphs that read as sentences (mostly letters, ending with a full stop,
question or exclamation mark) and joins each into one line; each topic is one document (documents separated by
a blank line), so the corpus has document and sentence boundaries for objectives that need them.
``python_docs_text(source="pydoc")`` re-extracts it from the running Python (how the file was made).
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

PYTHON_DOCS_FILENAME = "python-docs.txt"
SHIPPED = Path(__file__).resolve().parent / "data" / PYTHON_DOCS_FILENAME
PYTHON_DOCS_SHA256 = "3aaa644c1a0ed890249121f2f8887dd24afacac6b6b25469f772bcb2df4752e8"
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


def python_docs_text(source: str = "shipped") -> str:
    """The corpus text: one document per topic (sorted by name), documents separated by a blank line.

    ``source`` "shipped" (the default) reads the file in the package (Python 3.11.7's topics, fixed);
    "pydoc" extracts the same from the running Python's ``pydoc_data`` (which differs between versions)."""
    if source == "shipped":
        return SHIPPED.read_bytes().decode("utf-8")
    if source != "pydoc":
        raise ValueError(f"source must be 'shipped' or 'pydoc', not {source!r}")
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


__all__ = [
    "PYTHON_DOCS_FILENAME", "PYTHON_DOCS_SHA256", "SHIPPED", "prose_paragraphs", "python_docs_corpus",
    "python_docs_text",
]
