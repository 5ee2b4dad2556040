"""Readers for the four fine-tuning task formats, and a seeded train/validation split.

- sentence classification: TSV / CSV / JSONL with a header; the text column is ``sentence`` or ``text``
  (pairs: ``sentence1`` and ``sentence2``) unless chosen; labels in ``label``;
- token classification: CoNLL-style files, ``word ... tag`` per line, a blank line between sentences;
- extractive QA: SQuAD 1.1 / 2.0 JSON (``data / paragraphs / context / qas / question / answers``;
  ``engine.data.squad``);
- sequence-to-sequence: TSV / CSV / JSONL with ``source`` and ``target``.

Every problem a user's file can have is a ``WorkbenchError`` naming the file and, where there is one, the line.
"""

from __future__ import annotations

import csv
import io
import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence, TypeVar

from engine.errors import TextEncodingError, WorkbenchError

T = TypeVar("T")

TEXT_COLUMNS = ("sentence", "text")
PAIR_COLUMNS = ("sentence1", "sentence2")


@dataclass(frozen=True)
class ClassificationExample:
    text: str
    label: str
    text_pair: str | None = None


@dataclass
class ClassificationData:
    examples: list[ClassificationExample]
    labels: list[str]  # sorted, so label ids are stable across files
    text_column: str
    pair_column: str | None = None

    @property
    def is_pair(self) -> bool:
        return self.pair_column is not None

    def label_id(self, label: str) -> int:
        return self.labels.index(label)


@dataclass(frozen=True)
class TaggedSentence:
    words: tuple[str, ...]
    tags: tuple[str, ...]


@dataclass
class TokenData:
    sentences: list[TaggedSentence]
    labels: list[str] = field(default_factory=list)  # "O" first, then the rest sorted


@dataclass(frozen=True)
class QAExample:
    id: str
    question: str
    context: str
    answers: tuple[str, ...]
    answer_starts: tuple[int, ...]  # character offsets into context

    @property
    def unanswerable(self) -> bool:
        """A SQuAD 2.0 ``is_impossible`` question: no answer in its context (``answers`` is empty)."""
        return not self.answers


@dataclass(frozen=True)
class Seq2SeqExample:
    source: str
    target: str


# ---------------------------------------------------------------- files


def _text(path: str | Path) -> tuple[Path, str]:
    path = Path(path)
    if not path.is_file():
        raise WorkbenchError(f"{path}: no such file")
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise TextEncodingError(f"{path}, line {line}: not UTF-8 text; save the file as UTF-8") from None
    if not text.strip():
        raise WorkbenchError(f"{path}: the file is empty")
    return path, text


def _rows(path: str | Path) -> tuple[Path, list[str], list[tuple[int, dict]]]:
    """(path, header, [(line number, row dict)]) from a TSV, CSV or JSONL file (chosen by suffix)."""
    path, text = _text(path)
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".json"):
        rows, header = [], []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise WorkbenchError(f"{path}, line {number}: not a JSON object ({exc.msg})") from None
            if not isinstance(row, dict):
                raise WorkbenchError(f"{path}, line {number}: each line must be a JSON object")
            header = header or list(row)
            rows.append((number, {k: "" if v is None else str(v) for k, v in row.items()}))
        return path, header, rows
    if suffix == ".csv":
        reader = csv.reader(io.StringIO(text))
    else:  # TSV: quotes are text (as in GLUE's files), a tab always separates
        reader = csv.reader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE)
    try:
        lines = [(reader.line_num, row) for row in reader]
    except csv.Error as exc:
        raise WorkbenchError(f"{path}, line {reader.line_num}: not readable as {suffix[1:].upper()} ({exc})") from None
    lines = [(n, r) for n, r in lines if any(cell.strip() for cell in r)]
    header = [cell.strip() for cell in lines[0][1]]
    rows = []
    for number, cells in lines[1:]:
        if len(cells) != len(header):
            raise WorkbenchError(f"{path}, line {number}: {len(cells)} columns, the header has {len(header)}")
        rows.append((number, dict(zip(header, cells))))
    return path, header, rows


def _need(path: Path, header: list[str], columns: Sequence[str]) -> None:
    missing = [c for c in columns if c not in header]
    if missing:
        raise WorkbenchError(f"{path}, line 1: missing column(s) {', '.join(missing)}; "
                             f"the header has {', '.join(header) or 'nothing'}")


def _cell(path: Path, number: int, row: dict, column: str) -> str:
    if column not in row:  # only JSONL rows can lack a key the first row had
        raise WorkbenchError(f"{path}, line {number}: no {column!r} field")
    return row[column]


def _nonempty(path: Path, rows: list, what: str) -> None:
    if not rows:
        raise WorkbenchError(f"{path}: no {what} after the header")


# ---------------------------------------------------------------- readers


def read_classification(path: str | Path, text_column: str | None = None,
                        pair_column: str | None = None, label_column: str = "label") -> ClassificationData:
    """Single sentences or pairs with labels. Without ``text_column`` the columns are found by name:
    ``sentence1``/``sentence2`` make a pair task, else ``sentence`` or ``text``."""
    path, header, rows = _rows(path)
    if text_column is None:
        if all(c in header for c in PAIR_COLUMNS):
            text_column, pair_column = PAIR_COLUMNS
        else:
            text_column = next((c for c in TEXT_COLUMNS if c in header), None)
            if text_column is None:
                raise WorkbenchError(f"{path}, line 1: no text column (sentence, text, or sentence1 and "
                                     f"sentence2); the header has {', '.join(header)}; choose one")
    _need(path, header, [text_column, label_column] + ([pair_column] if pair_column else []))
    _nonempty(path, rows, "examples")
    examples = []
    for number, row in rows:
        label = _cell(path, number, row, label_column).strip()
        text = _cell(path, number, row, text_column)
        pair = _cell(path, number, row, pair_column) if pair_column else None
        if not label:
            raise WorkbenchError(f"{path}, line {number}: empty label")
        if not text.strip() or (pair is not None and not pair.strip()):
            raise WorkbenchError(f"{path}, line {number}: empty text")
        examples.append(ClassificationExample(text, label, pair))
    labels = sorted({e.label for e in examples})
    if len(labels) < 2:
        raise WorkbenchError(f"{path}: only one label ({labels[0]}); classification needs at least two")
    return ClassificationData(examples, labels, text_column, pair_column)


def read_bio(path: str | Path) -> TokenData:
    """CoNLL-style token classification: the first field is the word, the last the BIO tag; ``-DOCSTART-``
    lines are skipped."""
    path, text = _text(path)
    sentences: list[TaggedSentence] = []
    words: list[str] = []
    tags: list[str] = []

    def close():
        if words:
            sentences.append(TaggedSentence(tuple(words), tuple(tags)))
            words.clear()
            tags.clear()

    for number, line in enumerate(text.splitlines(), start=1):
        fields = line.split()
        if not fields:
            close()
            continue
        if fields[0] == "-DOCSTART-":
            continue
        if len(fields) < 2:
            raise WorkbenchError(f"{path}, line {number}: expected 'word ... tag', found one field")
        tag = fields[-1]
        if not (tag == "O" or (tag[:2] in ("B-", "I-") and len(tag) > 2)):
            raise WorkbenchError(f"{path}, line {number}: tag {tag!r} is not O, B-TYPE or I-TYPE")
        words.append(fields[0])
        tags.append(tag)
    close()
    _nonempty(path, sentences, "sentences")
    others = sorted({t for s in sentences for t in s.tags} - {"O"})
    return TokenData(sentences, ["O"] + others)


def read_squad(path: str | Path) -> list[QAExample]:
    """SQuAD 1.1 or 2.0 JSON (``engine.data.squad``): each answer's ``answer_start`` must point at its text
    inside the context; a SQuAD 2.0 ``is_impossible`` question comes back with no answers."""
    from engine.data.squad import read_squad_file

    return read_squad_file(path).examples


def read_seq2seq(path: str | Path, source_column: str = "source",
                 target_column: str = "target") -> list[Seq2SeqExample]:
    path, header, rows = _rows(path)
    _need(path, header, [source_column, target_column])
    _nonempty(path, rows, "examples")
    examples = []
    for number, row in rows:
        source, target = _cell(path, number, row, source_column), _cell(path, number, row, target_column)
        if not source.strip() or not target.strip():
            raise WorkbenchError(f"{path}, line {number}: empty {source_column} or {target_column}")
        examples.append(Seq2SeqExample(source, target))
    return examples


def train_validation_split(examples: Sequence[T], fraction: float = 0.1,
                           seed: int = 0) -> tuple[list[T], list[T]]:
    """A seeded shuffle, then the last ``fraction`` (at least one example) held out for validation."""
    if len(examples) < 2:
        raise WorkbenchError("at least two examples are needed to hold some out for validation")
    if not 0.0 < fraction < 1.0:
        raise WorkbenchError(f"the validation fraction must be between 0 and 1, not {fraction}")
    order = list(range(len(examples)))
    random.Random(seed).shuffle(order)
    held = min(len(examples) - 1, max(1, round(len(examples) * fraction)))
    train = [examples[i] for i in order[:-held]]
    validation = [examples[i] for i in order[-held:]]
    return train, validation
