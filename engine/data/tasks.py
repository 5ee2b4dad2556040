"""The task formats' examples and readers (fine-tuning's four tasks; prompting reads the classification one),
and a seeded train/validation split.

- sentence classification: TSV / CSV / JSONL with a header (``lm_workbench.engine.data.table``: a TSV's quotes as its
  writer meant them, GLUE's or pandas', ``tsv_quoting``); the text column is ``sentence`` or ``text`` (pairs:
  ``sentence1`` and ``sentence2``) unless chosen; labels in ``label``;
- token classification: CoNLL-2003 / CoNLL-U (``lm_workbench.engine.data.conll``), a blank line between sentences;
- extractive QA: SQuAD 1.1 / 2.0 JSON (``data / paragraphs / context / qas / question / answers``;
  ``lm_workbench.engine.data.squad``);
- sequence-to-sequence: TSV / CSV / JSONL with ``source`` and ``target``.

A row a reader cannot use is skipped and counted in the result's ``report`` (line and reason), never dropped
silently; a file with nothing usable is a ``WorkbenchError`` naming the file and, where there is one, the line.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence, TypeVar

from lm_workbench.engine.data.conll import read_conll
from lm_workbench.engine.data.labels import Spellings, stratified_holdout
from lm_workbench.engine.data.rows import ReadReport, Table
from lm_workbench.engine.data.squad import QAExample, read_squad_file
from lm_workbench.engine.data.table import read_table
from lm_workbench.engine.errors import WorkbenchError

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
    report: ReadReport | None = None  # what reading the file kept and skipped

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
    report: ReadReport | None = None


@dataclass(frozen=True)
class Seq2SeqExample:
    source: str
    target: str


# ---------------------------------------------------------------- files


class ReadExamples(list):
    """A reader's examples (a plain list) with ``report``: what it read and skipped (``ReadReport``)."""

    def __init__(self, examples=(), report: ReadReport | None = None):
        super().__init__(examples)
        self.report = report


def _table(path: str | Path, tsv_quoting: str) -> Table:
    table = read_table(path, tsv_quoting=tsv_quoting)
    if not table.rows and not table.report.rows_skipped:
        raise WorkbenchError(f"{table.source}: no examples after the header")
    return table


# ---------------------------------------------------------------- readers


def read_classification(path: str | Path, text_column: str | None = None,
                        pair_column: str | None = None, label_column: str = "label", *,
                        tsv_quoting: str = "auto", spellings: Spellings | None = None,
                        min_labels: int = 2) -> ClassificationData:
    """Single sentences or pairs with labels (``lm_workbench.engine.data.table``). Without ``text_column`` the columns are
    found by name: ``sentence1``/``sentence2`` make a pair task, else ``sentence`` or ``text``. Labels are
    text, numbers or words alike (GLUE's ``0``/``1``, RTE's ``entailment``); a row with an empty text or
    label is skipped and reported; a file without a label column (a GLUE test file) is refused. ``tsv_quoting``:
    how a TSV file's quotes are read (``lm_workbench.engine.data.tsv_quoting``).

    Label cells are one class when ``lm_workbench.engine.data.labels.label_key`` says so (``1``, ``1.0`` and
    `` 1``; not ``Pos`` and ``pos``): each example carries its class's name. ``spellings`` shares that across
    files (the caller then says what was merged); without it the report's notes say it. A file with fewer than
    ``min_labels`` classes is refused (a validation or test file may hold one: pass 1)."""
    table = _table(path, tsv_quoting)
    if text_column is None:
        found = [table.find_column(c) for c in PAIR_COLUMNS]
        if all(found):
            text_column, pair_column = found
        else:
            text_column = table.first_column(TEXT_COLUMNS)
            if text_column is None:
                raise WorkbenchError(f"{table.source}, line 1: no text column (sentence, text, or sentence1 and "
                                     f"sentence2); the header has {', '.join(table.header)}; choose one")
    else:
        text_column = table.column(text_column, "the text")
        pair_column = table.column(pair_column, "the second text") if pair_column else None
    if table.find_column(label_column) is None:
        raise WorkbenchError(f"{table.source}, line 1: no {label_column!r} column, so nothing to learn or score "
                             f"(an unlabeled file, such as a GLUE test file, cannot train); the header has "
                             f"{', '.join(table.header)}")
    label_column = table.column(label_column, "the label")
    named = spellings if spellings is not None else Spellings()
    where = Path(str(table.source)).name
    examples = []
    for row in table.rows:
        cell = row.get(label_column) or ""
        label = named.name(cell, where) if cell.strip() else ""
        text = row.get(text_column) or ""
        pair = (row.get(pair_column) or "") if pair_column else None
        if not label:
            table.report.skip(row.line, "empty label")
        elif not text.strip() or (pair is not None and not pair.strip()):
            table.report.skip(row.line, "empty text")
        else:
            examples.append(ClassificationExample(text, label, pair))
    table.keep(examples)
    table.report.require_rows("examples")
    if spellings is None:
        for line in named.notes():
            table.report.note(line)
    labels = sorted({e.label for e in examples})
    if len(labels) < min_labels:
        raise WorkbenchError(f"{table.source}: only one label ({labels[0]}); classification needs at least two")
    return ClassificationData(examples, labels, text_column, pair_column, table.report)


def read_bio(path: str | Path, tag_column: int | None = None) -> TokenData:
    """Token classification from CoNLL-2003 / CoNLL-U (``lm_workbench.engine.data.conll``): the word first, the BIO tag in
    the last column unless ``tag_column`` (1-based) chooses another; ``-DOCSTART-`` lines passed over; IOB1
    tags converted to IOB2 (the report says so)."""
    read = read_conll(path, tag_column)
    for start, tags in zip(read.lines, read.tags):
        bad = next((t for t in tags if not (t == "O" or (t[:2] in ("B-", "I-") and len(t) > 2))), None)
        if bad is not None:
            raise WorkbenchError(f"{read.report.source}, sentence at line {start}: tag {bad!r} is not O, B-TYPE or "
                                 f"I-TYPE (token classification learns entity tags; --tag-column chooses the "
                                 f"column, e.g. 4 for CoNLL-2003's NER)")
    sentences = [TaggedSentence(tuple(w), tuple(t)) for w, t in zip(read.sentences, read.tags)]
    others = sorted({t for s in sentences for t in s.tags} - {"O"})
    return TokenData(sentences, ["O"] + others, read.report)


def read_squad(path: str | Path) -> list[QAExample]:
    """SQuAD 1.1 or 2.0 JSON (``lm_workbench.engine.data.squad``): each answer's ``answer_start`` must point at its text
    inside the context; a SQuAD 2.0 ``is_impossible`` question comes back with no answers."""
    read = read_squad_file(path)
    report = ReadReport(str(path), rows_read=len(read.examples), unit="questions")
    if read.unanswerable:
        report.note(f"{read.unanswerable} of {len(read.examples)} questions have no answer (SQuAD 2.0)")
    return ReadExamples(read.examples, report)


def read_seq2seq(path: str | Path, source_column: str = "source",
                 target_column: str = "target", *, tsv_quoting: str = "auto") -> ReadExamples:
    """Source and target texts (``lm_workbench.engine.data.table``, ``tsv_quoting`` as there); a row with either
    empty is skipped and reported."""
    table = _table(path, tsv_quoting)
    source_column = table.column(source_column, "the source")
    target_column = table.column(target_column, "the target")
    examples = ReadExamples(report=table.report)
    for row in table.rows:
        source, target = row.get(source_column) or "", row.get(target_column) or ""
        if not source.strip() or not target.strip():
            table.report.skip(row.line, f"empty {source_column if not source.strip() else target_column}")
            continue
        examples.append(Seq2SeqExample(source, target))
    table.keep(examples)
    table.report.require_rows("examples")
    return examples


def train_validation_split(examples: Sequence[T], fraction: float = 0.1, seed: int = 0,
                           labels: Sequence[str] | None = None) -> tuple[list[T], list[T]]:
    """Hold out ``fraction`` of ``examples`` (at least one, never all), seeded.

    Without ``labels``: a seeded shuffle, the last ``fraction`` held out (both parts in the shuffled order). With
    ``labels`` (one per example): stratified, every class keeps an example in training, both parts in the input's
    order (``lm_workbench.engine.data.labels.stratified_holdout``; call that for its notes)."""
    if labels is not None:
        return stratified_holdout(list(labels), fraction, seed).take(examples)
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
