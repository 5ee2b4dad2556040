"""The one table reader: TSV as its writer meant it, CSV by RFC 4180, JSON Lines.

Every tabular input of the workbench (the Embeddings corpus, probing sentence
tasks, STS pairs, fine-tuning and prompting data, a retrieval corpus) is read
here, so a file reads the same way everywhere:

- ``.tsv``: a tab separates; quotes follow the file's own convention,
  ``tsv_quoting`` (``lm_workbench.engine.data.tsv_quoting``): ``auto`` decides
  once per file between GLUE's (quotes are text, a line is a row) and the csv
  writers' (pandas, Excel, Python's csv module: a quoted field may hold tabs,
  doubled quotes and line breaks), and the read note says which and why;
- ``.csv``: RFC 4180 (a quoted field may hold commas, doubled quotes and line
  breaks);
- ``.jsonl`` / ``.ndjson`` / ``.json``: one JSON object per line; the header
  is every field name in the order first seen;
- any other suffix: TSV if the first line holds a tab, JSONL if it opens with
  ``{``, else CSV.

The first row of a TSV or CSV file is its header (names matched without regard
to case; an empty first name is pandas' index column, named ``index``). A row
that cannot be read (a different number of columns than the header, a line
that is not a JSON object) is *skipped and reported*, never dropped silently:
``Table.report`` names each skipped line and why, and the readers built on
this one skip rows whose cells they cannot use (an empty text, a score that is
not a number) the same way. A blank line is not a row. Files are read through
the checked reader (``lm_workbench.engine.text_input``): bytes that are not
UTF-8, or control bytes (a binary file), stop the read with their byte and
line; a BOM is dropped.

``stream_table`` is a generator that yields ``Progress`` in bytes (a 50 MB
file shows a moving bar and can be cancelled) and returns the ``Table``;
``read_table`` runs it to the end.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any, Generator, Iterable, Iterator

from lm_workbench.engine.data.rows import ReadReport, Row, Table, cell_text
from lm_workbench.engine.data.tsv_quoting import check_choice, decide, header_cells
from lm_workbench.engine.data.tsv_quoting import rows as tsv_rows
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, Progress, run_to_completion
from lm_workbench.engine.text_input import BOM, TextLines, check_text

TSV_SUFFIXES = (".tsv", ".tab")
CSV_SUFFIXES = (".csv",)
JSONL_SUFFIXES = (".jsonl", ".ndjson", ".json")
TABLE_SUFFIXES = TSV_SUFFIXES + CSV_SUFFIXES + JSONL_SUFFIXES
PROGRESS_EVERY_BYTES = 1 << 20  # one report per MiB read
csv.field_size_limit(1 << 30)  # paragraphs can be long; the default 128 KiB is not enough


def table_format(path: Path) -> str:
    """By suffix; a file with another suffix (or none) by its first line: a tab makes it TSV, an opening
    brace JSONL, anything else CSV."""
    suffix = path.suffix.lower()
    if suffix in CSV_SUFFIXES:
        return "csv"
    if suffix in JSONL_SUFFIXES:
        return "jsonl"
    if suffix in TSV_SUFFIXES:
        return "tsv"
    try:
        with path.open("rb") as f:
            first = next((ln for ln in f if ln.strip()), b"")
    except OSError:
        return "tsv"
    if b"\t" in first:
        return "tsv"
    return "jsonl" if first.lstrip().startswith(b"{") else "csv"


INDEX_COLUMN = "index"  # the name of pandas' unnamed index column


def _csv_rows(lines: TextLines, path: Path) -> Iterator[tuple[int, list[str]]]:
    reader = csv.reader(lines)
    try:
        for cells in reader:
            if any(c.strip() for c in cells):
                yield reader.line_num, cells
    except csv.Error as exc:
        raise WorkbenchError(f"{path.name}, line {reader.line_num}: not valid CSV ({exc}); a quoted field must "
                             f"end with a quote") from None


def _collected(items: Iterable[Any], lines: TextLines, total: int, cancel: CancelToken, *,
               counted: str = "") -> Generator[Progress, None, list[Any]]:
    """``items`` (drawn from ``lines``) in a list, with byte progress every ``PROGRESS_EVERY_BYTES`` of the file
    (and how many items, named ``counted``, when given); cancellable there."""
    out: list[Any] = []
    reported = 0
    for item in items:
        out.append(item)
        if lines.bytes_read - reported >= PROGRESS_EVERY_BYTES:
            cancel.check()
            reported = lines.bytes_read
            count = f", {len(out):,} {counted}" if counted else ""
            yield Progress(reported, total, f"read {reported / 1e6:.1f} of {total / 1e6:.1f} MB{count}")
    return out


def stream_table(path: str | Path, *, tsv_quoting: str = "auto",
                 cancel: CancelToken = NEVER_CANCELLED) -> Generator[Progress, None, Table]:
    """Read a TSV, CSV or JSONL file (by suffix), or a split in the datasets cache (``glue/sst2:validation``,
    ``lm_workbench.engine.data.hub_datasets``); yields byte ``Progress``, returns the ``Table``.
    ``tsv_quoting`` (auto, literal, csv) is how a TSV file's quotes are read (``tsv_quoting`` module); the
    report's ``quoting`` says which convention was used and why. ``WorkbenchError`` for a file that cannot be
    read (``TextEncodingError`` for one that is not text)."""
    from lm_workbench.engine.data.hub_datasets import dataset_table, looks_like_dataset

    tsv_quoting = check_choice(tsv_quoting)
    if looks_like_dataset(str(path)):
        yield Progress(0, 1, f"reading {path} from the datasets cache")
        table = dataset_table(str(path))
        yield Progress(1, 1, f"read {table.report.rows_read:,} rows of {path}")
        return table
    path = Path(path)
    if not path.exists():
        raise WorkbenchError(f"no such file: {path}")
    if path.is_dir():
        raise WorkbenchError(f"{path} is a folder, not a file")
    total = path.stat().st_size
    kind = table_format(path)
    lines = TextLines(path)
    report = ReadReport(str(path))
    header: list[str] = []
    yield Progress(0, total, f"reading {path.name}")
    if kind == "jsonl":
        source = _json_rows(lines, report, header)
    elif kind == "csv":
        source = _cell_rows(_csv_rows(lines, path), path, kind, report, header)
    else:
        text_lines = yield from _collected(lines, lines, total, cancel)  # all first: quoting is decided once
        quoting = decide(text_lines, tsv_quoting)
        report.quoting = quoting.note()
        source = _cell_rows(tsv_rows(text_lines, quoting, path.name, report.skip), path, kind, report, header)
    rows: list[Row] = yield from _collected(source, lines, total, cancel, counted="rows")
    if not header and report.skipped:
        report.require_rows("rows")  # every line was skipped: say why
    if not header:
        raise WorkbenchError(f"{path} is empty: a table needs a header row (column names) and rows")
    report.rows_read = len(rows)
    yield Progress(total, total, f"read {len(rows):,} rows from {path.name}")
    return Table(header, rows, report, kind)


def read_table(path: str | Path, *, tsv_quoting: str = "auto") -> Table:
    """``stream_table`` run to its end."""
    return run_to_completion(stream_table(path, tsv_quoting=tsv_quoting))


def peek_header(path: str | Path, max_bytes: int = 1 << 16, *, tsv_quoting: str = "auto") -> list[str]:
    """A table's column names as ``read_table`` will see them (a JSONL file: its first object's keys), read
    from the start of the file only, for a column chooser; [] when it is not a table or cannot be read."""
    from lm_workbench.engine.data.hub_datasets import dataset_columns, looks_like_dataset

    if looks_like_dataset(str(path)):
        return dataset_columns(str(path))
    path = Path(path)
    if path.suffix.lower() not in TABLE_SUFFIXES:
        return []
    try:
        with path.open("rb") as fh:
            first = next((ln for ln in iter(lambda: fh.readline(max_bytes), b"") if ln.strip()), b"")
        text = check_text(first, str(path)).lstrip(BOM).rstrip("\r\n")
    except (OSError, WorkbenchError):
        return []
    kind = table_format(path)
    if kind == "jsonl":
        try:
            obj = json.loads(text)
        except ValueError:
            return []
        return [str(k) for k in obj] if isinstance(obj, dict) else []
    cells = header_cells(text, tsv_quoting) if kind == "tsv" else next(csv.reader([text]), [])
    names = [c.strip() for c in cells]
    if names and not names[0] and len(names) > 1:
        names[0] = INDEX_COLUMN
    return [n for n in names if n]


def _header(names: list[str], path: Path, number: int, report: ReadReport) -> list[str]:
    """A header row's names; an empty first name (pandas' index column, written unless ``index=False``) is
    named ``index`` and said; any other empty name refuses the file."""
    if len(names) > 1 and not names[0] and all(names[1:]):
        name = INDEX_COLUMN if INDEX_COLUMN not in (n.casefold() for n in names) else "(index)"
        names = [name, *names[1:]]
        report.note(f"column 1 has no name (the index column pandas writes without index=False): read as {name!r}")
    if any(not n for n in names):
        raise WorkbenchError(f"{path.name}, line {number}: the header row has an empty column name "
                             f"({'; '.join(repr(n) for n in names)}); the first row names the columns")
    return names


def _cell_rows(source: Iterator[tuple[int, list[str]]], path: Path, kind: str, report: ReadReport,
               header: list[str]) -> Iterator[Row]:
    for number, cells in source:
        if not header:
            header.extend(_header([c.strip() for c in cells], path, number, report))
            continue
        if len(cells) != len(header):
            hint = " (a tab inside a sentence?)" if kind == "tsv" and len(cells) > len(header) else ""
            report.skip(number, f"{len(cells)} column(s), the header has {len(header)}{hint}")
            continue
        yield Row(number, dict(zip(header, cells)))


def _json_rows(lines: TextLines, report: ReadReport, header: list[str]) -> Iterator[Row]:
    for line in lines:
        if not line.strip():
            continue
        number = lines.number
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            report.skip(number, f"not JSON ({exc.msg})")
            continue
        if not isinstance(obj, dict):
            report.skip(number, f"a JSON {type(obj).__name__}, not an object with named fields")
            continue
        for key in obj:
            if key not in header:
                header.append(key)
        yield Row(number, {k: cell_text(v) for k, v in obj.items()})
