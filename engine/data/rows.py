"""What the data readers return: rows with the line each came from, a table of them, and the report of what a
read kept and skipped (line and reason). ``lm_workbench.engine.data.table`` reads files into these and
``lm_workbench.engine.data.hub_datasets`` reads cached dataset splits into them; ``cell_text`` is how both write a
non-text value (a number, a list) into a cell.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from lm_workbench.engine.errors import WorkbenchError

SKIPPED_KEPT = 1000  # skipped rows remembered one by one (all are counted)


@dataclass(frozen=True)
class SkippedRow:
    line: int  # 1-based line of the file
    reason: str


@dataclass
class ReadReport:
    """What a reader kept and what it left out, with line numbers and reasons."""

    source: str
    rows_read: int = 0
    rows_skipped: int = 0
    skipped: list[SkippedRow] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what was changed or passed over on purpose
    unit: str = "rows"  # what a row is: rows, sentences, questions
    quoting: str | None = None  # a TSV file: how its quotes were read, and why (``tsv_quoting.Quoting.note``)

    def skip(self, line: int, reason: str) -> None:
        self.rows_skipped += 1
        if len(self.skipped) < SKIPPED_KEPT:
            self.skipped.append(SkippedRow(line, reason))

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def summary(self) -> str:
        """``read 1,498 rows, skipped 2 (first: line 17: 2 columns, the header has 3)``."""
        text = f"read {self.rows_read:,} {self.unit}, skipped {self.rows_skipped:,}"
        if self.skipped:
            first = min(self.skipped, key=lambda s: s.line)
            text += f" (first: line {first.line}: {first.reason})"
        if self.quoting:
            text += f"; {self.quoting}"
        return text + "".join(f"; {n}" for n in self.notes)

    def as_json(self, limit: int = 20) -> dict:
        """``rows_read``, ``rows_skipped`` and the first ``limit`` skipped rows as ``{line, reason}``, the
        ``notes``, the ``unit`` and, for a TSV file, ``tsv_quoting`` (how its quotes were read)."""
        out = {"rows_read": self.rows_read, "rows_skipped": self.rows_skipped,
               "skipped": [{"line": s.line, "reason": s.reason}
                           for s in sorted(self.skipped, key=lambda s: s.line)[:limit]],
               "notes": list(self.notes), "unit": self.unit}
        return out | ({"tsv_quoting": self.quoting} if self.quoting else {})

    @classmethod
    def from_json(cls, source: str, values: dict) -> "ReadReport":
        """Back from ``as_json`` (a recorded result's ``read``), for its ``summary``."""
        report = cls(source, int(values.get("rows_read", 0)), int(values.get("rows_skipped", 0)),
                     notes=list(values.get("notes", [])), unit=str(values.get("unit", "rows")),
                     quoting=values.get("tsv_quoting"))
        report.skipped = [SkippedRow(int(s["line"]), str(s["reason"])) for s in values.get("skipped", [])]
        return report

    def require_rows(self, what: str) -> None:
        """Refuse a read that kept nothing, naming the first reason a row was left out."""
        if self.rows_read:
            return
        first = min(self.skipped, key=lambda s: s.line) if self.skipped else None
        why = f" ({self.rows_skipped} skipped; first: line {first.line}: {first.reason})" if first else ""
        raise WorkbenchError(f"{self.source} has no {what}{why}")


@dataclass(frozen=True)
class Row:
    line: int
    cells: dict[str, str]  # column -> cell (JSONL: only the fields the object has)

    def get(self, column: str) -> str | None:
        return self.cells.get(column)


@dataclass
class Table:
    header: list[str]
    rows: list[Row]
    report: ReadReport
    format: str  # "tsv", "csv", "jsonl" or "dataset"

    @property
    def source(self) -> str:
        return self.report.source

    def find_column(self, wanted: str) -> str | None:
        """The header's name for ``wanted``, matched without regard to case or surrounding spaces."""
        key = wanted.strip().casefold()
        return next((h for h in self.header if h.strip().casefold() == key), None)

    def column(self, wanted: str, purpose: str) -> str:
        """Like ``find_column``, but a missing column is a ``WorkbenchError`` listing the header."""
        found = self.find_column(wanted)
        if found is None:
            raise WorkbenchError(f"{self.source}, line 1: no {wanted!r} column ({purpose}); "
                                 f"the header has {', '.join(self.header) or 'nothing'}")
        return found

    def first_column(self, candidates: tuple[str, ...]) -> str | None:
        return next((c for c in (self.find_column(n) for n in candidates) if c is not None), None)

    def keep(self, rows: list) -> None:
        """Record how many rows a typed reader kept (after its own skips)."""
        self.report.rows_read = len(rows)


def cell_text(value) -> str:
    """A JSON value as a cell's text: None is empty, true/false lower case, a list or object as JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, float)):
        return str(value)
    return json.dumps(value, ensure_ascii=False)
