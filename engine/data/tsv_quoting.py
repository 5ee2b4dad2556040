"""How a TSV file quotes: GLUE's way (quotes are text) or the csv way (pandas, Excel, Python's csv module).

Two conventions write tab-separated files:

- ``literal``: a tab always separates, a line is a row and a ``"`` is text. GLUE's and SentEval's files are
  written so, and their sentences hold stray quotes (``"Yes," she said.``).
- ``csv``: RFC 4180 with a tab as the separator. A field that holds a quote, a tab or a line break is written in
  quoted form, its inner quotes doubled: ``"She said ""wow"" at the view."``; ``pandas.DataFrame.to_csv(sep="\\t")``,
  Excel's text export and Python's ``csv`` module (``QUOTE_MINIMAL``, ``QUOTE_ALL``) write this.

``--tsv-quoting auto`` (the default) decides once per file, from evidence it names in the read note:

1. a header name in quoted form (``"sentence"``): ``QUOTE_ALL`` and ``QUOTE_NONNUMERIC`` writers quote the
   header; no one names a column with quotes around it;
2. a field in quoted form with doubled inner quotes (``"She said ""wow""."``), the form a csv writer gives a
   field holding a quote, or a field in quoted form holding a carriage return;
3. a quoted field holding a tab, a line break or a quote, in a row that csv quoting reads with the header's
   number of columns while its lines, split at every tab, do not have it (a row only csv quoting reads whole).

A line that merely opens with a quote (``"Yes," she said.``) or a sentence in quotes (``"Hello."``) is not
evidence: GLUE's files hold both. Without evidence the file is read ``literal``. For a file from a csv writer
that is the same reading whenever no field needed quotes (such a writer quotes only fields holding a quote, a
tab or a line break, and ``QUOTE_ALL`` quotes its header too). The one file left ambiguous is one that reads
whole both ways: every line has the header's number of tab-separated cells, yet csv quoting would join some
of them (a cell opening a quote on one line and a cell closing it on a later one, with no doubled quotes in
one line between). GLUE's files look like that, so it reads ``literal``; ``--tsv-quoting csv`` reads it the
other way. ``literal`` and ``csv`` force a convention.

Read with ``csv``, a row that breaks the quoting (a quote inside an unquoted field, text after a closing
quote) is skipped and reported; a quoted field that never closes refuses the file with its line, as in a CSV.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from itertools import islice
from typing import Callable, Iterator, Sequence

from lm_workbench.engine.errors import WorkbenchError

TSV_QUOTINGS = ("auto", "literal", "csv")
EVIDENCE_SPAN = 1000  # lines a row may span for evidence 3
QUOTED = re.compile(r'"(?:[^"]|"")*"')  # a whole field in quoted form
QUOTED_WITH_DOUBLED = re.compile(r'"(?:[^"]|"")*""(?:[^"]|"")*"')  # ... holding at least one doubled quote
SHOWN = 40  # characters of a field quoted in a note
NO_EVIDENCE = "no field in csv's quoted form, so quotes are text as in GLUE"


@dataclass(frozen=True)
class Quoting:
    """The convention a TSV file was read with (``literal`` or ``csv``), asked for as ``asked``, and why."""

    convention: str
    asked: str
    reason: str

    def note(self) -> str:
        """The read note, e.g. ``TSV quoting: csv (line 3: a quoted field with doubled quotes, "She said…")``."""
        return f"TSV quoting: {self.convention} ({self.reason})"


def check_choice(choice: str) -> str:
    if choice not in TSV_QUOTINGS:
        raise WorkbenchError(f"--tsv-quoting must be auto, literal or csv, not {choice!r}")
    return choice


def _text(line: str) -> str:
    return line.rstrip("\r\n")


def _shown(field: str) -> str:
    return field if len(field) <= SHOWN else field[:SHOWN] + "…"


def _cells(line: str) -> int:
    return len(_text(line).split("\t"))


def _csv_row(lines: Sequence[str], start: int, header_columns: int) -> str | None:
    """Evidence 3 at ``lines[start]``: the first record read there with csv quoting, if it ends within
    ``EVIDENCE_SPAN`` lines, has ``header_columns`` fields, one of them holding a tab, a line break or a quote,
    and its lines split at every tab do not all have ``header_columns`` cells; where it is, else None."""
    reader = csv.reader(islice(lines, start, start + EVIDENCE_SPAN), delimiter="\t", strict=True)
    try:
        cells = next(reader)
    except (csv.Error, StopIteration):
        return None
    end = start + reader.line_num
    if len(cells) != header_columns or all(_cells(ln) == header_columns for ln in lines[start:end]):
        return None
    held = next((c for c in cells if any(ch in c for ch in '\t\n\r"')), None)
    if held is None:
        return None
    kind = "a tab" if "\t" in held else "a line break" if "\n" in held or "\r" in held else "a quote"
    where = f"line {start + 1}" if end == start + 1 else f"lines {start + 1}-{end}"
    return f"{where}: a quoted field holding {kind}, {_shown(repr(held))}"


def evidence(lines: Sequence[str]) -> str | None:
    """Where the file shows csv quoting (evidence 1-3 of the module, the first found), or None."""
    header_at = next((i for i, ln in enumerate(lines) if ln.strip()), None)
    if header_at is None:
        return None
    header = _text(lines[header_at]).split("\t")
    quoted = next((f for f in header if QUOTED.fullmatch(f)), None)
    if quoted is not None:
        return f"line {header_at + 1}: the header's names are quoted ({_shown(quoted)})"
    for i in range(header_at + 1, len(lines)):
        line = lines[i]
        if '"' not in line:
            continue
        fields = _text(line).split("\t")
        doubled = next((f for f in fields if QUOTED_WITH_DOUBLED.fullmatch(f)), None)
        if doubled is not None:
            return f"line {i + 1}: a quoted field with doubled quotes, {_shown(doubled)}"
        held_cr = next((f for f in fields if "\r" in f and QUOTED.fullmatch(f)), None)
        if held_cr is not None:
            return f"line {i + 1}: a quoted field holding a line break, {_shown(repr(held_cr))}"
        if any(f.startswith('"') and not QUOTED.fullmatch(f) for f in fields):
            found = _csv_row(lines, i, len(header))
            if found is not None:
                return found
    return None


def decide(lines: Sequence[str], asked: str) -> Quoting:
    """The convention for a file whose lines (with their endings) are ``lines``: ``asked`` unless it is auto."""
    check_choice(asked)
    if asked != "auto":
        return Quoting(asked, asked, "as chosen")
    found = evidence(lines)
    if found is not None:
        return Quoting("csv", asked, found)
    return Quoting("literal", asked, NO_EVIDENCE)


def header_cells(line: str, asked: str = "auto") -> list[str]:
    """The cells of a header line alone (for a column chooser): split with csv quoting when ``asked`` is csv,
    or auto and a name is quoted (evidence 1)."""
    text = _text(line)
    cells = text.split("\t")
    if asked == "csv" or (asked == "auto" and any(QUOTED.fullmatch(c) for c in cells)):
        return next(csv.reader([text], delimiter="\t"), [])
    return cells


class _Tracked:
    """An iterator that remembers whether it ran out (a quoted field open at the end of the file)."""

    def __init__(self, items: Sequence[str]):
        self.items = iter(items)
        self.done = False

    def __iter__(self) -> "_Tracked":
        return self

    def __next__(self) -> str:
        try:
            return next(self.items)
        except StopIteration:
            self.done = True
            raise


def rows(lines: Sequence[str], quoting: Quoting, name: str,
         skip: Callable[[int, str], None]) -> Iterator[tuple[int, list[str]]]:
    """(line number, cells) of every non-blank row. ``csv``: a row spanning lines is numbered by its last line;
    a row that breaks the quoting is passed to ``skip`` (line, reason); a quoted field that never closes is a
    ``WorkbenchError`` naming the line it opens on."""
    if quoting.convention == "literal":
        for number, line in enumerate(lines, start=1):
            text = _text(line)
            if text.strip():
                yield number, text.split("\t")
        return
    source = _Tracked(lines)
    reader = csv.reader(source, delimiter="\t", strict=True)
    last = 0
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            start = last + 1
            while start < len(lines) and not lines[start - 1].strip():
                start += 1
            if source.done:
                raise WorkbenchError(f"{name}, line {start}: a quoted field opens and never closes (the file is "
                                     f"read with csv quoting: {quoting.reason})") from None
            skip(reader.line_num, f"the quotes do not follow csv quoting ({exc}): a field holding a quote is "
                                  f"written in quotes, its quotes doubled")
            last = reader.line_num
            continue
        last = reader.line_num
        if any(c.strip() for c in cells):
            yield reader.line_num, cells
