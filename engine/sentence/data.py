"""The sentence task's data: scored pairs, (anchor, positive[, negative]) triplets, NLI files turned into triplets.

Read through the one table reader (``lm_workbench.engine.data.table``: TSV as GLUE publishes it, unquoted; CSV; JSONL), the
columns found by the header unless ``columns`` names them:

- scored pairs: ``sentence1, sentence2, score`` (GLUE STS-B's TSV as published, whose other columns ``index,
  genre, filename, year, old_index, source1, source2`` are passed over; ``sentence_a/sentence_b`` as SICK; a
  numeric ``label`` as the datasets library's ``stsb``);
- triplets: ``anchor, positive[, negative]`` (pairs without a negative train with in-batch negatives);
- NLI: ``premise, hypothesis, label`` (or ``sentence1, sentence2, gold_label`` as SNLI / MultiNLI publish it):
  each premise becomes the anchor, an entailed hypothesis the positive and a contradicting one the negative;
  neutral rows are left out and counted, and the report says so.

``columns`` names two columns (anchor, positive), or three: a third whose cells are all numbers is a score
(scored pairs), otherwise a negative (triplets). A row with an empty sentence, or a score that is not a number, is
skipped and reported (line and reason), never dropped silently.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from lm_workbench.engine.data.rows import ReadReport, Table
from lm_workbench.engine.data.table import read_table
from lm_workbench.engine.errors import WorkbenchError

SCORED, TRIPLETS = "scored pairs", "triplets"
PAIR_NAMES = (("sentence1", "sentence2"), ("sentence_a", "sentence_b"))
SCORE_NAMES = ("score", "similarity_score", "relatedness_score", "label")
TRIPLET_NAMES = ("anchor", "positive", "negative")
NLI_NAMES = (("premise", "hypothesis", "label"), ("sentence1", "sentence2", "gold_label"),
             ("premise", "hypothesis", "gold_label"))
ENTAILMENT, CONTRADICTION = ("entailment", "0"), ("contradiction", "2")  # words, or the datasets library's ids


@dataclass(frozen=True)
class ScoredPair:
    first: str
    second: str
    score: float


@dataclass(frozen=True)
class Triplet:
    anchor: str
    positive: str
    negative: str | None = None


class SentenceData(list):
    """A file's examples (``ScoredPair`` or ``Triplet``, one kind), with ``kind``, ``columns`` and ``report``."""

    def __init__(self, examples: Sequence, kind: str, columns: Sequence[str], report: ReadReport):
        super().__init__(examples)
        self.kind, self.columns, self.report = kind, list(columns), report

    @property
    def has_negatives(self) -> bool:
        return self.kind == TRIPLETS and bool(self) and all(e.negative is not None for e in self)

    @property
    def score_max(self) -> float:
        """The largest gold score (STS-B: 5): the cosine loss regresses cos(u, v) to score / this."""
        return max((e.score for e in self), default=1.0) if self.kind == SCORED else 1.0


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _all_numbers(table: Table, column: str) -> bool:
    cells = [(row.get(column) or "").strip() for row in table.rows]
    cells = [c for c in cells if c]
    return bool(cells) and all(_number(c) is not None for c in cells)


def _found(table: Table, names: Sequence[str]) -> list[str] | None:
    found = [table.find_column(n) for n in names]
    return found if all(found) else None  # type: ignore[return-value]


def _by_header(table: Table) -> tuple[str, list[str]]:
    """(kind or "nli", the columns) from the header; ``WorkbenchError`` listing what it looked for."""
    for names in NLI_NAMES:
        found = _found(table, names)
        if found:
            return "nli", found
    for pair in PAIR_NAMES:
        for score in SCORE_NAMES:
            found = _found(table, (*pair, score))
            if found and (score != "label" or _all_numbers(table, found[2])):
                return SCORED, found
    found = _found(table, TRIPLET_NAMES) or _found(table, TRIPLET_NAMES[:2])
    if found:
        return TRIPLETS, found
    raise WorkbenchError(f"{table.source}, line 1: no sentence-pair columns (sentence1, sentence2, score; "
                         f"anchor, positive[, negative]; or premise, hypothesis, label); the header has "
                         f"{', '.join(table.header)}; name them with --columns")


def _chosen(table: Table, columns: Sequence[str]) -> tuple[str, list[str]]:
    names = [c.strip() for c in columns if c.strip()]
    if len(names) not in (2, 3):
        raise WorkbenchError(f"--columns names two columns (anchor, positive) or three (a score or a negative "
                             f"third), not {len(names)}")
    found = [table.column(n, "named by --columns") for n in names]
    if len(found) == 3 and _all_numbers(table, found[2]):
        return SCORED, found
    return TRIPLETS, found


def read_sentence_data(path: str | Path, columns: Sequence[str] | None = None, *,
                       tsv_quoting: str = "auto") -> SentenceData:
    """The examples of one file (see the module; ``tsv_quoting``: how a TSV file's quotes are read);
    ``WorkbenchError`` for a file with nothing usable."""
    table = read_table(path, tsv_quoting=tsv_quoting)
    kind, found = _chosen(table, columns) if columns else _by_header(table)
    if kind == "nli":
        return _nli(table, found)
    examples: list = []
    for row in table.rows:
        cells = [(row.get(c) or "").strip() for c in found]
        if not cells[0] or not cells[1]:
            table.report.skip(row.line, "a sentence is empty")
            continue
        if kind == SCORED:
            score = _number(cells[2])
            if score is None:
                table.report.skip(row.line, f"the score {cells[2]!r} is not a number")
                continue
            examples.append(ScoredPair(cells[0], cells[1], score))
        else:
            negative = cells[2] if len(cells) > 2 and cells[2] else None
            examples.append(Triplet(cells[0], cells[1], negative))
    table.keep(examples)
    table.report.require_rows(kind)
    if kind == SCORED and len(examples) >= 2 and len({e.score for e in examples}) < 2:
        raise WorkbenchError(f"{table.source}: every pair has the score {examples[0].score:g}; scored pairs need "
                             f"at least two different scores")
    if kind == TRIPLETS and len(found) > 2:
        missing = sum(e.negative is None for e in examples)
        if missing:
            table.report.note(f"{missing} row(s) have no negative")
    return SentenceData(examples, kind, found, table.report)


def _nli(table: Table, found: list[str]) -> SentenceData:
    """Premise -> (entailed, contradicting) triplets, in file order; neutral rows left out and counted."""
    premise_col, hypothesis_col, label_col = found
    entailed: dict[str, list[str]] = {}
    contradicted: dict[str, list[str]] = {}
    neutral = 0
    for row in table.rows:
        premise, hypothesis = (row.get(premise_col) or "").strip(), (row.get(hypothesis_col) or "").strip()
        label = (row.get(label_col) or "").strip().casefold()
        if not premise or not hypothesis:
            table.report.skip(row.line, "a sentence is empty")
        elif label in ENTAILMENT:
            entailed.setdefault(premise, []).append(hypothesis)
        elif label in CONTRADICTION:
            contradicted.setdefault(premise, []).append(hypothesis)
        elif label in ("neutral", "1"):
            neutral += 1
        else:
            table.report.skip(row.line, f"the label {label!r} is not entailment, neutral or contradiction")
    examples = []
    for premise, positives in entailed.items():
        negatives = contradicted.get(premise, [])
        for i, positive in enumerate(positives):
            examples.append(Triplet(premise, positive, negatives[i % len(negatives)] if negatives else None))
    table.keep(examples)
    table.report.require_rows("entailment pairs (NLI rows labelled entailment)")
    table.report.unit = "triplets"
    with_negative = sum(e.negative is not None for e in examples)
    table.report.note(f"NLI: entailment = positive, contradiction = negative (premise as the anchor): "
                      f"{len(examples)} triplets, {with_negative} with a negative; {neutral} neutral row(s) left out")
    return SentenceData(examples, TRIPLETS, found, table.report)
