"""A corpus of passages: ids and texts, from a text file (one passage per line), a CSV/TSV/JSONL table, or
lines given in memory; and its content hash (what the index cache is keyed by).

- ``.txt`` (or any file that is not a table): each non-blank line is a passage, numbered by its line
  (1-based, as the Decisions of issue 32 say), so blank lines leave gaps in the numbering;
- ``.tsv`` / ``.csv`` / ``.jsonl`` (read by the one table reader, ``lm_workbench.engine.data.table``): the text column
  (``text``, ``passage``, ``contents``, ``sentence``, or the only column), an id column when there is one
  (``_id``, ``id``, ``doc_id``, ``docid``, ``pid``; else the row's line) and a ``title`` column when there is
  one: a passage is then ``title + " " + text``, stripped (BEIR's document). Rows with an empty text or an id
  seen before are skipped and reported.

Both go through the checked reader (``lm_workbench.engine.text_input``): a binary file or one that is not UTF-8
is refused with its byte and line.

An empty corpus is refused with one line.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from lm_workbench.engine.data.rows import ReadReport
from lm_workbench.engine.errors import WorkbenchError

ID_COLUMNS = ("_id", "id", "doc_id", "docid", "pid", "corpus-id")
TEXT_COLUMNS = ("text", "passage", "contents", "content", "sentence", "body")
TITLE_COLUMNS = ("title",)
TEXT_SUFFIXES = (".txt", ".text", "")


@dataclass
class Corpus:
    ids: list[str]
    texts: list[str]
    source: str
    report: ReadReport = field(default_factory=lambda: ReadReport("corpus", unit="passages"))
    titles: list[str] | None = None  # a table's title column, one per passage ("" for none); texts begin with it
    _digest: str | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if len(self.ids) != len(self.texts):
            raise WorkbenchError(f"{len(self.ids)} ids for {len(self.texts)} passages")
        if not self.texts:
            raise WorkbenchError(f"{self.source}: the corpus is empty (no passages to search)")

    def __len__(self) -> int:
        return len(self.texts)

    @property
    def digest(self) -> str:
        """SHA-256 of the ids and texts in order: the same passages give the same hash on any machine."""
        if self._digest is None:
            h = hashlib.sha256()
            for pid, text in zip(self.ids, self.texts):
                h.update(pid.encode("utf-8"))
                h.update(b"\x1f")
                h.update(text.encode("utf-8"))
                h.update(b"\x1e")
            self._digest = h.hexdigest()
        return self._digest

    def position(self) -> dict[str, int]:
        """id -> index in corpus order."""
        return {pid: i for i, pid in enumerate(self.ids)}


def beir_document(title: str | None, text: str | None) -> str:
    """A BEIR document as BEIR's dense retrievers read it: ``title + " " + text``, stripped."""
    return f"{title or ''} {text or ''}".strip()


def corpus_from_lines(lines: Sequence[str], source: str = "typed passages") -> Corpus:
    """Passages given as lines (a lecture step, a test): each non-blank line, numbered by its line (1-based)."""
    report = ReadReport(source, unit="passages")
    ids, texts = [], []
    for n, line in enumerate(lines, start=1):
        text = str(line).strip()
        if text:
            ids.append(str(n))
            texts.append(text)
    report.rows_read = len(texts)
    return Corpus(ids, texts, source, report)


def _read_text_file(path: Path) -> Corpus:
    from lm_workbench.engine.text_input import read_text_file

    corpus_lines = read_text_file(path).splitlines()
    ids, texts = [], []
    for n, line in enumerate(corpus_lines, start=1):
        if line.strip():
            ids.append(str(n))
            texts.append(line.strip())
    report = ReadReport(str(path), rows_read=len(texts), unit="passages")
    return Corpus(ids, texts, str(path), report)


def _read_table_file(path: Path, tsv_quoting: str = "auto") -> Corpus:
    from lm_workbench.engine.data.table import read_table

    table = read_table(path, tsv_quoting=tsv_quoting)
    text_col = table.first_column(TEXT_COLUMNS) or (table.header[0] if len(table.header) == 1 else None)
    if text_col is None:
        raise WorkbenchError(f"{path}, line 1: no text column ({', '.join(TEXT_COLUMNS)}); "
                             f"the header has {', '.join(table.header)}")
    id_col = table.first_column(ID_COLUMNS)
    title_col = table.first_column(TITLE_COLUMNS)
    report = table.report
    report.unit = "passages"
    ids, texts, titles, seen = [], [], [], set()
    for row in table.rows:
        title = (row.get(title_col) or "").strip() if title_col else ""
        text = beir_document(title, row.get(text_col))
        pid = (row.get(id_col) or "").strip() if id_col else str(row.line)
        if not text:
            report.skip(row.line, "empty passage")
        elif not pid:
            report.skip(row.line, f"empty {id_col}")
        elif pid in seen:
            report.skip(row.line, f"id {pid!r} seen before")
        else:
            seen.add(pid)
            ids.append(pid)
            texts.append(text)
            titles.append(title)
    report.rows_read = len(texts)
    if not texts:
        report.require_rows("passages")
    return Corpus(ids, texts, str(path), report, titles if any(titles) else None)


def read_corpus(path: str | Path, *, tsv_quoting: str = "auto") -> Corpus:
    """The passages of a text file or a CSV/TSV/JSONL table (see the module docstring; ``tsv_quoting``: how a
    TSV file's quotes are read, ``lm_workbench.engine.data.tsv_quoting``); a BEIR folder's ``corpus.jsonl``
    reads as a table."""
    from lm_workbench.engine.data.table import TABLE_SUFFIXES

    path = Path(path)
    if path.is_dir():
        beir = path / "corpus.jsonl"
        if beir.is_file():
            return _read_table_file(beir)
        raise WorkbenchError(f"{path} is a folder without corpus.jsonl (a BEIR folder has corpus.jsonl, "
                             "queries.jsonl and qrels/<split>.tsv)")
    if not path.is_file():
        raise WorkbenchError(f"no such file: {path}")
    if path.suffix.lower() in TABLE_SUFFIXES:
        return _read_table_file(path, tsv_quoting)
    return _read_text_file(path)
