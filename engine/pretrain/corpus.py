"""Pre-training corpora: text files streamed line by line, grouped into documents.

A corpus is one or more files. ``.jsonl`` files hold one JSON object per line
whose ``"text"`` field is a document; every other file is plain text where
blank lines separate documents. Inside a document each non-empty line is one
sentence or paragraph: the unit that packing keeps whole where it can, and the
boundary that next-sentence prediction and sentence permutation rely on.

Files are read in binary, one line at a time (Python's buffered reader holds a
few kilobytes, never the file), and each line is checked and decoded on its
own by the checked reader's test (``lm_workbench.engine.text_input``), so a
byte that is not UTF-8, or a control byte of a binary file, is reported with
its file, byte and line. ``iter_corpus_lines`` is the lowest level: it yields
lines with document numbers and byte positions, so the dataset builder streams
even a corpus that is one huge document;
``iter_documents`` groups those lines into documents for callers that want them.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.pretrain.python_docs import python_docs_corpus  # part of this module's API (written elsewhere)
from lm_workbench.engine.text_input import BOM, check_text

JSONL_SUFFIXES = (".jsonl", ".ndjson")


@dataclass
class CorpusSpec:
    """Which files make the corpus and how it is split into train and validation."""

    paths: list[str] = field(default_factory=list)
    validation_fraction: float = 0.05
    seed: int = 0


@dataclass(frozen=True)
class CorpusLine:
    """One non-empty line of the corpus: its text, its document's number and how far reading has got."""

    text: str
    document: int  # 0-based, counted across all files
    bytes_done: int  # bytes read so far over all files (for progress)


def _check_paths(paths: Iterable[str | os.PathLike]) -> list[Path]:
    checked = [Path(p) for p in paths]
    if not checked:
        raise WorkbenchError("the corpus names no files; give at least one .txt or .jsonl file")
    for path in checked:
        if not path.exists():
            raise WorkbenchError(f"corpus file {path} does not exist")
        if not path.is_file():
            raise WorkbenchError(f"corpus path {path} is not a file")
    return checked


def corpus_bytes(paths: Iterable[str | os.PathLike]) -> int:
    """Total size of the corpus files in bytes (the progress total of one pass)."""
    return sum(p.stat().st_size for p in _check_paths(paths))


def _decode(raw: bytes, path: Path, number: int, offset: int) -> str:
    """One line through the checked reader's test (``lm_workbench.engine.text_input.check_text``: a binary file
    or bytes that are not UTF-8 are refused with their byte and line); a BOM before the first line dropped."""
    text = check_text(raw, str(path), offset=offset, line=number)
    if number == 1 and text.startswith(BOM):  # a byte-order mark some editors write
        text = text[1:]
    return text


def _jsonl_text(text: str, path: Path, number: int) -> str:
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        raise WorkbenchError(f"{path} line {number} is not valid JSON: {exc.msg}") from None
    if not isinstance(record, dict) or not isinstance(record.get("text"), str):
        raise WorkbenchError(f'{path} line {number} has no "text" string field')
    return record["text"]


def _file_lines(path: Path) -> Iterator[tuple[str | None, int]]:
    """(line, bytes read in this file) for a file; ``None`` marks a document boundary."""
    jsonl = path.suffix.lower() in JSONL_SUFFIXES
    done = 0
    try:
        handle = open(path, "rb")
    except OSError as exc:
        raise WorkbenchError(f"cannot read corpus file {path}: {exc.strerror}") from None
    with handle:
        for number, raw in enumerate(handle, start=1):
            text = _decode(raw, path, number, done).strip()
            done += len(raw)
            if not text:
                if not jsonl:
                    yield None, done
                continue
            if not jsonl:
                yield text, done
                continue
            for part in _jsonl_text(text, path, number).split("\n"):
                part = part.strip()
                if part:
                    yield part, done
            yield None, done
    yield None, done  # a file's end ends its last document


def iter_corpus_lines(paths: Iterable[str | os.PathLike]) -> Iterator[CorpusLine]:
    """Every non-empty line of the corpus with its document number, streamed.

    Raises ``WorkbenchError`` naming the file (and line) for a missing file,
    a file that is not text (``TextEncodingError``), bad JSON, and for a corpus with no text at all.
    """
    files = _check_paths(paths)
    before = 0
    document = 0
    in_document = False
    for path in files:
        done = 0
        for text, done in _file_lines(path):
            if text is None:
                if in_document:
                    document += 1
                    in_document = False
                continue
            in_document = True
            yield CorpusLine(text, document, before + done)
        before += done
    if document == 0:
        names = ", ".join(str(p) for p in files)
        raise WorkbenchError(f"the corpus ({names}) has no text: every line is empty")


def iter_documents(paths: Iterable[str | os.PathLike]) -> Iterator[list[str]]:
    """Each document of the corpus as its list of non-empty lines, streamed file by file."""
    current: list[str] = []
    number = 0
    for line in iter_corpus_lines(paths):
        if line.document != number and current:
            yield current
            current = []
        number = line.document
        current.append(line.text)
    if current:
        yield current


def corpus_lines(paths: Iterable[str | os.PathLike]) -> Iterator[str]:
    """Just the lines' text, streamed: what ``train_tokenizer`` reads."""
    for line in iter_corpus_lines(paths):
        yield line.text


__all__ = [
    "CorpusLine", "CorpusSpec", "JSONL_SUFFIXES", "corpus_bytes", "corpus_lines", "iter_corpus_lines",
    "iter_documents", "python_docs_corpus",
]