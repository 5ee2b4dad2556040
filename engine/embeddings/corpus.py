"""Read the user's corpus: one text per line, from a file or pasted text.

Formats, chosen by the file's suffix:

- ``.txt`` (and anything unknown): one sentence or paragraph per line;
- ``.csv`` / ``.tsv``: a header row, a text column (named ``text`` or
  ``sentence``, else the first column that does not hold a number) and an
  optional label column (``label`` or ``sense`` unless named);
- ``.jsonl`` / ``.ndjson`` (and ``.json``): one JSON object per line with a ``text`` field and
  optionally ``label`` or ``sense``.

Files are streamed line by line (never read whole) and the reader yields
``Progress`` in bytes, so a 50 MB file shows a moving bar and can be
cancelled. Blank lines and blank cells are skipped; every kept text remembers
the line of the file it came from, so messages and the CLI can point back to
it. A byte sequence that is not UTF-8 is refused with the line it is on.
"""

from __future__ import annotations

import csv
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generator, Iterator

from engine.errors import TextEncodingError, WorkbenchError
from engine.progress import NEVER_CANCELLED, CancelToken, Progress

TEXT_COLUMNS = ("text", "sentence")
LABEL_COLUMNS = ("label", "sense")
PROGRESS_EVERY_BYTES = 1 << 20  # one report per MiB read
csv.field_size_limit(1 << 30)  # paragraphs can be long; the default 128 KiB is not enough


@dataclass
class Corpus:
    """Texts to embed, one per line, with optional labels.

    ``line_numbers[i]`` is the 1-based line of the source (file or pasted
    text) that ``lines[i]`` came from (for a CSV cell spanning lines, its last); ``labels`` is parallel to ``lines`` or
    None when the source has no label column.
    """

    lines: list[str]
    labels: list[str | None] | None = None
    source: str = "pasted text"
    line_numbers: list[int] = field(default_factory=list)
    label_name: str | None = None

    def __post_init__(self) -> None:
        if not self.line_numbers:
            self.line_numbers = list(range(1, len(self.lines) + 1))
        if self.labels is not None and len(self.labels) != len(self.lines):
            raise ValueError("labels must be parallel to lines")

    def __len__(self) -> int:
        return len(self.lines)

    def fingerprint(self) -> str:
        """A hash of the texts (not their labels): the activation cache's corpus key."""
        digest = hashlib.sha256()
        for line in self.lines:
            digest.update(line.encode("utf-8"))
            digest.update(b"\x00")
        return digest.hexdigest()


def require_lines(corpus: Corpus) -> Corpus:
    """Refuse a corpus without a single non-blank text."""
    if not corpus.lines:
        raise WorkbenchError(f"the corpus ({corpus.source}) is empty: it has no non-blank line of text")
    return corpus


def corpus_from_text(text: str, source: str = "pasted text") -> Corpus:
    """A corpus from pasted text: one text per non-blank line."""
    lines, numbers = [], []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            lines.append(line.strip())
            numbers.append(number)
    return require_lines(Corpus(lines=lines, labels=None, source=source, line_numbers=numbers))


class _LineStream:
    """Decoded lines of a file, one at a time, counting bytes for progress."""

    def __init__(self, path: Path):
        self.path = path
        self.bytes_read = 0
        self.line_number = 0

    def __iter__(self) -> Iterator[str]:
        try:
            f = self.path.open("rb")
        except OSError as exc:
            raise WorkbenchError(f"cannot read {self.path}: {exc.strerror}") from None
        with f:
            for raw in f:
                self.line_number += 1
                self.bytes_read += len(raw)
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise TextEncodingError(
                        f"{self.path.name} is not UTF-8 text: line {self.line_number} has byte "
                        f"0x{raw[exc.start]:02x} at column {exc.start + 1}; save it as UTF-8 and try again"
                    ) from None
                if self.line_number == 1 and line.startswith("\ufeff"):
                    line = line[1:]
                yield line


def read_corpus(
    path: str | Path,
    *,
    text_column: str | None = None,
    label_column: str | None = None,
    cancel: CancelToken = NEVER_CANCELLED,
) -> Generator[Progress, None, Corpus]:
    """Stream a corpus file; yields byte Progress, returns the Corpus."""
    path = Path(path)
    if not path.is_file():
        raise WorkbenchError(f"corpus file {path} does not exist")
    total = path.stat().st_size
    suffix = path.suffix.lower()
    stream = _LineStream(path)
    if suffix in (".csv", ".tsv"):
        rows = _table_rows(stream, "\t" if suffix == ".tsv" else ",", path, text_column, label_column)
    elif suffix in (".jsonl", ".ndjson", ".json"):
        rows = _json_rows(stream, path, text_column, label_column)
    else:
        if text_column or label_column:
            raise WorkbenchError(f"{path.name} is plain text: columns apply to .csv, .tsv and .jsonl files")
        rows = ((stream.line_number, line.strip(), None) for line in stream)

    lines: list[str] = []
    labels: list[str | None] = []
    numbers: list[int] = []
    reported = 0
    yield Progress(0, total, f"reading {path.name}")
    with_labels, label_name = False, None
    for number, text, label in rows:
        if isinstance(text, _Header):
            with_labels = text.label_column is not None
            label_name = text.label_column
            continue
        if text:
            lines.append(text)
            labels.append(label)
            numbers.append(number)
        if stream.bytes_read - reported >= PROGRESS_EVERY_BYTES:
            cancel.check()
            reported = stream.bytes_read
            yield Progress(reported, total, f"read {reported / 1e6:.1f} of {total / 1e6:.1f} MB, {len(lines)} texts")
    yield Progress(total, total, f"read {len(lines)} texts from {path.name}")
    corpus = Corpus(
        lines=lines,
        labels=labels if with_labels else None,
        source=str(path),
        line_numbers=numbers,
        label_name=label_name if with_labels else None,
    )
    return require_lines(corpus)


@dataclass
class _Header:
    """Marker row: which label column (if any) a table or JSON file provides."""

    label_column: str | None


def _pick_column(names: list[str], wanted: str | None, defaults: tuple[str, ...], what: str,
                 path: Path) -> int | None:
    lowered = [n.strip().lower() for n in names]
    if wanted is not None:
        if wanted.strip().lower() not in lowered:
            raise WorkbenchError(f"{path.name} has no {what} column {wanted!r}; its columns are {', '.join(names)}")
        return lowered.index(wanted.strip().lower())
    for name in defaults:
        if name in lowered:
            return lowered.index(name)
    return None


def _is_number(value: str) -> bool:
    try:
        float(value)
    except ValueError:
        return False
    return True


def _table_rows(stream: _LineStream, delimiter: str, path: Path, text_column: str | None,
                label_column: str | None) -> Iterator[tuple[int, object, str | None]]:
    reader = csv.reader(stream, delimiter=delimiter)
    try:
        header = next(reader, None)
        if header is None:
            return
        text_at = _pick_column(header, text_column, TEXT_COLUMNS, "text", path)
        label_at = _pick_column(header, label_column, LABEL_COLUMNS, "label", path)
        first = None
        if text_at is None:  # the first column that holds words, not numbers
            first = next(reader, None)
            if first is None:
                return
            candidates = [i for i, v in enumerate(first) if v.strip() and not _is_number(v) and i != label_at]
            if not candidates:
                raise WorkbenchError(f"{path.name}: no column holds text; name it with a 'text' header")
            text_at = candidates[0]
        yield 0, _Header(header[label_at].strip() if label_at is not None else None), None
        rows = ([first] if first is not None else [])
        for row in _chain(rows, reader):
            text = row[text_at].strip() if text_at < len(row) else ""
            label = None
            if label_at is not None and label_at < len(row) and row[label_at].strip():
                label = row[label_at].strip()
            yield reader.line_num, text, label
    except csv.Error as exc:
        kind = "TSV" if delimiter == "\t" else "CSV"
        raise WorkbenchError(f"{path.name} line {reader.line_num}: not valid {kind}: {exc}") from None


def _chain(first: list, rest: Iterator) -> Iterator:
    yield from first
    yield from rest


def _json_rows(stream: _LineStream, path: Path, text_column: str | None,
               label_column: str | None) -> Iterator[tuple[int, object, str | None]]:
    text_key = text_column or "text"
    header_sent = False
    label_key = label_column
    for line in stream:
        if not line.strip():
            continue
        number = stream.line_number
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise WorkbenchError(f"{path.name} line {number}: not valid JSON ({exc.msg})") from None
        if not isinstance(obj, dict):
            raise WorkbenchError(f"{path.name} line {number}: expected a JSON object with a {text_key!r} field")
        if not header_sent:  # the first object decides the label field
            if label_key is None:
                label_key = next((k for k in LABEL_COLUMNS if k in obj), None)
            elif label_key not in obj:
                raise WorkbenchError(f"{path.name} line {number}: no label field {label_key!r}")
            yield 0, _Header(label_key), None
            header_sent = True
        if text_key not in obj:
            raise WorkbenchError(f"{path.name} line {number}: the object has no {text_key!r} field")
        text = obj[text_key]
        if not isinstance(text, str):
            raise WorkbenchError(f"{path.name} line {number}: {text_key!r} is not a string")
        label = obj.get(label_key) if label_key else None
        yield number, " ".join(text.split()), None if label is None else str(label)

