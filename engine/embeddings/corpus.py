"""Read the user's corpus: one text per line, from a file or pasted text.

Formats, chosen by the file's suffix:

- ``.txt`` (and anything unknown): one sentence or paragraph per line;
- ``.tsv`` / ``.csv`` / ``.jsonl`` (``.ndjson``, ``.json``): a table read by
  ``lm_workbench.engine.data.table`` (TSV: quotes as the file's writer meant them,
  ``tsv_quoting``; CSV: RFC 4180; JSONL: one object per line), with a text column (named ``text`` or ``sentence``, else
  the first column that does not hold a number) and an optional label column
  (``label`` or ``sense`` unless named).

Files are streamed line by line and the reader yields ``Progress`` in bytes,
so a 50 MB file shows a moving bar and can be cancelled. Blank lines are not
texts; a table row that cannot be read or has no text is skipped and reported
(``Corpus.report``); every kept text remembers the line of the file it came
from, so messages and the CLI can point back to it. A file that is not text
(bytes that are not UTF-8, control bytes) is refused with its byte and line
(``lm_workbench.engine.text_input``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generator

from lm_workbench.engine.data.rows import ReadReport, Table
from lm_workbench.engine.data.table import PROGRESS_EVERY_BYTES, TABLE_SUFFIXES, stream_table
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, Progress
from lm_workbench.engine.text_input import TextLines

TEXT_COLUMNS = ("text", "sentence")
LABEL_COLUMNS = ("label", "sense")


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
    report: ReadReport | None = None  # what reading the file kept and skipped (None: pasted text)

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


def read_corpus(
    path: str | Path,
    *,
    text_column: str | None = None,
    label_column: str | None = None,
    tsv_quoting: str = "auto",
    cancel: CancelToken = NEVER_CANCELLED,
) -> Generator[Progress, None, Corpus]:
    """Stream a corpus file (or a split in the datasets cache, ``glue/sst2:validation``); yields byte Progress,
    returns the Corpus (with its ``report``). ``tsv_quoting``: how a TSV file's quotes are read."""
    from lm_workbench.engine.data.hub_datasets import looks_like_dataset

    if looks_like_dataset(str(path)):
        table = yield from stream_table(str(path), cancel=cancel)
        return require_lines(_corpus_from_table(table, text_column, label_column))
    path = Path(path)
    if not path.is_file():
        raise WorkbenchError(f"corpus file {path} does not exist")
    if path.suffix.lower() in TABLE_SUFFIXES:
        table = yield from stream_table(path, tsv_quoting=tsv_quoting, cancel=cancel)
        return require_lines(_corpus_from_table(table, text_column, label_column))
    if text_column or label_column:
        raise WorkbenchError(f"{path.name} is plain text: columns apply to .csv, .tsv and .jsonl files")
    return require_lines((yield from _plain_lines(path, cancel)))


def _plain_lines(path: Path, cancel: CancelToken) -> Generator[Progress, None, Corpus]:
    """One text per non-blank line (blank lines are not texts, so nothing is reported as skipped)."""
    total = path.stat().st_size
    stream = TextLines(path)
    lines: list[str] = []
    numbers: list[int] = []
    reported = 0
    yield Progress(0, total, f"reading {path.name}")
    for line in stream:
        if line.strip():
            lines.append(line.strip())
            numbers.append(stream.number)
        if stream.bytes_read - reported >= PROGRESS_EVERY_BYTES:
            cancel.check()
            reported = stream.bytes_read
            yield Progress(reported, total, f"read {reported / 1e6:.1f} of {total / 1e6:.1f} MB, {len(lines)} texts")
    yield Progress(total, total, f"read {len(lines)} texts from {path.name}")
    report = ReadReport(str(path), rows_read=len(lines))
    return Corpus(lines=lines, labels=None, source=str(path), line_numbers=numbers, report=report)


def _is_number(value: str) -> bool:
    try:
        float(value)
    except ValueError:
        return False
    return True


def _corpus_from_table(table: Table, text_column: str | None, label_column: str | None) -> Corpus:
    """The text column (named, else ``text`` / ``sentence``, else the first that holds words) and the label
    column (named, else ``label`` / ``sense``, else none); a row with an empty text is skipped and reported."""
    name = Path(table.source).name
    text = table.column(text_column, "the text") if text_column else table.first_column(TEXT_COLUMNS)
    label = table.column(label_column, "the label") if label_column else table.first_column(LABEL_COLUMNS)
    if text is None:  # the first column that holds words, not numbers
        first = table.rows[0].cells if table.rows else {}
        candidates = [c for c in table.header if c != label and (first.get(c) or "").strip()
                      and not _is_number(first[c])]
        if not candidates:
            raise WorkbenchError(f"{name}: no column holds text; name it with a 'text' header or --text-column")
        text = candidates[0]
    lines, labels, numbers = [], [], []
    for row in table.rows:
        value = " ".join((row.get(text) or "").split())
        if not value:
            table.report.skip(row.line, f"no text in the {text!r} column")
            continue
        lines.append(value)
        tag = (row.get(label) or "").strip() if label else ""
        labels.append(tag or None)
        numbers.append(row.line)
    table.keep(lines)
    return Corpus(lines=lines, labels=labels if label else None, source=table.source, line_numbers=numbers,
                  label_name=label, report=table.report)
