"""Read probing tasks: token tags (CoNLL / CoNLL-U), labelled sentences (CSV/TSV) and STS pairs.

- token task: one word per line, sentences separated by blank lines. A
  CoNLL-U file (``.conllu``, or any file whose first word line has 10
  tab-separated columns) gives FORM (column 2) and UPOS (column 4); comment
  lines (``#``), multiword ranges (``1-2``) and empty nodes (``1.1``) are
  skipped. Any other file is CoNLL: whitespace-separated columns, the word
  first and the tag last.
- sentence task: a header row with ``text`` and ``label`` columns (``.tsv``
  is tab-separated, anything else comma-separated).
- STS: a header row with ``sentence1``, ``sentence2`` and ``score`` (a number).

Every problem a user can cause (not UTF-8, a missing column, a bad number,
an empty file) is a ``WorkbenchError`` naming the file and line.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from pathlib import Path

from engine.errors import TextEncodingError, WorkbenchError

CONLLU_COLUMNS = 10


@dataclass
class TokenTask:
    """Sentences of words, each word with a tag."""

    sentences: list[list[str]]
    tags: list[list[str]]
    source: str

    @property
    def words(self) -> int:
        return sum(len(s) for s in self.sentences)


@dataclass
class SentenceTask:
    """Texts, each with a label."""

    texts: list[str]
    labels: list[str]
    source: str


@dataclass
class StsPairs:
    """Sentence pairs with gold similarity scores."""

    first: list[str]
    second: list[str]
    scores: list[float]
    source: str


def _read_lines(path: str | Path) -> list[str]:
    """The file's lines, decoded as UTF-8 (a BOM is dropped); bad bytes name their line."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise WorkbenchError(f"no such file: {p}") from None
    except IsADirectoryError:
        raise WorkbenchError(f"{p} is a folder, not a file") from None
    except OSError as exc:
        raise WorkbenchError(f"cannot read {p}: {exc.strerror}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise TextEncodingError(f"{p}, line {line}: not UTF-8 text (byte 0x{data[exc.start]:02x}); "
                                "save the file as UTF-8") from None
    return text.splitlines()


def _is_conllu(path: Path, lines: list[str]) -> bool:
    if path.suffix.lower() == ".conllu":
        return True
    first = next((ln for ln in lines if ln.strip() and not ln.startswith("#")), "")
    return len(first.split("\t")) == CONLLU_COLUMNS


def read_token_task(path: str | Path) -> TokenTask:
    """Sentences and tags from a CoNLL or CoNLL-U file (see the module doc)."""
    p = Path(path)
    lines = _read_lines(p)
    conllu = _is_conllu(p, lines)
    sentences: list[list[str]] = []
    tags: list[list[str]] = []
    words: list[str] = []
    labels: list[str] = []

    def close() -> None:
        if words:
            sentences.append(list(words))
            tags.append(list(labels))
            words.clear()
            labels.clear()

    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip("\r\n")
        if not line.strip():
            close()
            continue
        if line.startswith("#"):
            continue
        if conllu:
            cols = line.split("\t")
            if len(cols) != CONLLU_COLUMNS:
                raise WorkbenchError(f"{p}, line {number}: a CoNLL-U word line has {CONLLU_COLUMNS} "
                                     f"tab-separated columns, this one has {len(cols)}")
            if "-" in cols[0] or "." in cols[0]:
                continue  # a multiword range or an empty node: its words are on their own lines
            word, tag = cols[1], cols[3]
        else:
            cols = line.split()
            if len(cols) < 2:
                raise WorkbenchError(f"{p}, line {number}: expected a word and a tag, found {line.strip()!r}")
            word, tag = cols[0], cols[-1]
        if not word.strip() or not tag.strip() or tag == "_":
            raise WorkbenchError(f"{p}, line {number}: the word or its tag is missing")
        words.append(word)
        labels.append(tag)
    close()
    if not sentences:
        raise WorkbenchError(f"{p} holds no tagged words (a token task has one word and its tag per line)")
    return TokenTask(sentences, tags, str(p))


def _table(path: str | Path, required: tuple[str, ...], what: str) -> tuple[Path, list[tuple[int, dict]]]:
    """(path, [(line number, row)]) of a CSV/TSV file with the ``required`` header columns."""
    p = Path(path)
    lines = _read_lines(p)
    if not any(ln.strip() for ln in lines):
        raise WorkbenchError(f"{p} is empty: {what} needs a header row with {', '.join(required)}")
    delimiter = "\t" if p.suffix.lower() == ".tsv" else ","
    reader = csv.reader(io.StringIO("\n".join(lines)), delimiter=delimiter)
    try:
        header = [h.strip().casefold() for h in next(reader)]
    except csv.Error as exc:
        raise WorkbenchError(f"{p}, line 1: {exc}") from None
    missing = [c for c in required if c not in header]
    if missing:
        raise WorkbenchError(f"{p}, line 1: the header has no {', '.join(repr(m) for m in missing)} column "
                             f"({what} needs {', '.join(required)}; found {', '.join(header) or 'nothing'})")
    index = {c: header.index(c) for c in required}
    rows = []
    try:
        for cells in reader:
            number = reader.line_num
            if not any(c.strip() for c in cells):
                continue
            if len(cells) <= max(index.values()):
                raise WorkbenchError(f"{p}, line {number}: {len(cells)} column(s), the header has {len(header)}")
            rows.append((number, {c: cells[i].strip() for c, i in index.items()}))
    except csv.Error as exc:
        raise WorkbenchError(f"{p}, line {reader.line_num}: {exc}") from None
    if not rows:
        raise WorkbenchError(f"{p} has a header but no rows")
    return p, rows


def read_sentence_task(path: str | Path) -> SentenceTask:
    """Texts and labels from a CSV/TSV file with ``text`` and ``label`` columns."""
    p, rows = _table(path, ("text", "label"), "a sentence task")
    for number, row in rows:
        if not row["text"] or not row["label"]:
            raise WorkbenchError(f"{p}, line {number}: the text or its label is empty")
    texts = [row["text"] for _, row in rows]
    labels = [row["label"] for _, row in rows]
    if len(set(labels)) < 2:
        raise WorkbenchError(f"{p}: every row has the label {labels[0]!r}; a probe needs at least two labels")
    return SentenceTask(texts, labels, str(p))


def read_sts(path: str | Path) -> StsPairs:
    """Sentence pairs and scores from a CSV/TSV file with ``sentence1``, ``sentence2`` and ``score``."""
    p, rows = _table(path, ("sentence1", "sentence2", "score"), "an STS file")
    first, second, scores = [], [], []
    for number, row in rows:
        if not row["sentence1"] or not row["sentence2"]:
            raise WorkbenchError(f"{p}, line {number}: a sentence is empty")
        try:
            score = float(row["score"])
            if not math.isfinite(score):
                raise ValueError
        except ValueError:
            raise WorkbenchError(f"{p}, line {number}: the score {row['score']!r} is not a number") from None
        first.append(row["sentence1"])
        second.append(row["sentence2"])
        scores.append(score)
    if len(rows) < 3:
        raise WorkbenchError(f"{p} has {len(rows)} pair(s); a rank correlation needs at least 3")
    return StsPairs(first, second, scores, str(p))
