"""Read probing tasks: token tags (CoNLL / CoNLL-U), labelled sentences and STS pairs (TSV/CSV/JSONL).

- token task: ``lm_workbench.engine.data.conll.read_conll`` (CoNLL-2003 or CoNLL-U; the tag
  column by position, multiword ranges and empty nodes passed over and counted);
- sentence task: ``lm_workbench.engine.data.table`` with ``text`` (or ``sentence``) and
  ``label`` columns unless named;
- STS: ``sentence1``, ``sentence2`` and ``score`` (a number) unless named.

A row whose cells cannot be used (an empty text, a score that is not a number)
is skipped and reported (``report``: rows read and skipped, with lines and
reasons), never dropped silently; a file with nothing usable, or one that is
not UTF-8, is a ``WorkbenchError`` naming the file and line.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from lm_workbench.engine.data.conll import read_conll
from lm_workbench.engine.data.rows import ReadReport
from lm_workbench.engine.data.table import read_table
from lm_workbench.engine.errors import WorkbenchError

TEXT_COLUMNS = ("text", "sentence")
PAIR_COLUMNS = ("sentence1", "sentence2")
STS_PAIR_COLUMNS = (("sentence1", "sentence2"), ("sentence_a", "sentence_b"))  # GLUE / STS-B; SICK
STS_SCORE_COLUMNS = ("score", "label", "relatedness_score", "similarity_score")  # datasets' GLUE stsb: label


@dataclass
class TokenTask:
    """Sentences of words, each word with a tag."""

    sentences: list[list[str]]
    tags: list[list[str]]
    source: str
    report: ReadReport | None = None

    @property
    def words(self) -> int:
        return sum(len(s) for s in self.sentences)


@dataclass
class SentenceTask:
    """Texts, each with a label."""

    texts: list[str]
    labels: list[str]
    source: str
    report: ReadReport | None = None


@dataclass
class StsPairs:
    """Sentence pairs with gold similarity scores."""

    first: list[str]
    second: list[str]
    scores: list[float]
    source: str
    report: ReadReport | None = field(default=None)


def read_token_task(path: str | Path, tag_column: int | None = None) -> TokenTask:
    """Sentences and tags from a CoNLL or CoNLL-U file (``lm_workbench.engine.data.conll``)."""
    read = read_conll(path, tag_column)
    return TokenTask(read.sentences, read.tags, read.report.source, read.report)


def read_sentence_task(path: str | Path, text_column: str | None = None,
                       label_column: str | None = None, *, tsv_quoting: str = "auto") -> SentenceTask:
    """Texts and labels from a TSV/CSV/JSONL file with ``text`` (or ``sentence``) and ``label`` columns; label cells
    that the label rule makes one class (``1``, ``1.0``) carry its first spelling, said in the report
    (``tsv_quoting``: how a TSV file's quotes are read, ``lm_workbench.engine.data.tsv_quoting``)."""
    from lm_workbench.engine.data.labels import Spellings

    table = read_table(path, tsv_quoting=tsv_quoting)
    spellings = Spellings()
    text = table.column(text_column, "the text") if text_column else table.first_column(TEXT_COLUMNS)
    if text is None:
        raise WorkbenchError(f"{table.source}, line 1: no text column (text or sentence); the header has "
                             f"{', '.join(table.header)}; choose one with --text-column")
    label = _label_column(table, label_column)
    texts, labels = [], []
    for row in table.rows:
        t, y = (row.get(text) or "").strip(), (row.get(label) or "").strip()
        if not t or not y:
            table.report.skip(row.line, f"the {'text' if not t else 'label'} is empty")
            continue
        texts.append(t)
        labels.append(spellings.name(row.get(label) or y))
    table.keep(texts)
    table.report.require_rows("labelled texts")
    for line in spellings.notes():
        table.report.note(line)
    if len(set(labels)) < 2:
        raise WorkbenchError(f"{table.source}: every row has the label {labels[0]!r}; a probe needs at least two "
                             f"labels")
    return SentenceTask(texts, labels, table.source, table.report)


def _label_column(table, wanted: str | None) -> str:
    if wanted:
        return table.column(wanted, "the label")
    found = table.find_column("label")
    if found is None:
        raise WorkbenchError(f"{table.source}, line 1: no 'label' column; the header has {', '.join(table.header)} "
                             f"(an unlabeled file, such as a GLUE test file, cannot train or be scored)")
    return found


def read_sts(path: str | Path, columns: tuple[str, str, str] | None = None, *, tsv_quoting: str = "auto") -> StsPairs:
    """Sentence pairs and scores from a TSV/CSV/JSONL file (or a split in the datasets cache) with
    ``sentence1``, ``sentence2`` and ``score`` (or the three ``columns`` named; without them, the score may
    be ``label`` as in the datasets library's GLUE STS-B, the pair ``sentence_A``/``sentence_B`` as in SICK);
    ``tsv_quoting`` as for ``read_sentence_task``."""
    table = read_table(path, tsv_quoting=tsv_quoting)
    if columns:
        names = columns
    else:
        pair = next((p for p in STS_PAIR_COLUMNS if all(table.find_column(c) for c in p)), PAIR_COLUMNS)
        names = (*pair, table.first_column(STS_SCORE_COLUMNS) or "score")
    a, b, s = (table.column(n, "an STS file needs two sentences and a score") for n in names)
    first, second, scores = [], [], []
    for row in table.rows:
        one, two, raw = (row.get(a) or "").strip(), (row.get(b) or "").strip(), (row.get(s) or "").strip()
        if not one or not two:
            table.report.skip(row.line, "a sentence is empty")
            continue
        try:
            score = float(raw)
            if not math.isfinite(score):
                raise ValueError
        except ValueError:
            table.report.skip(row.line, f"the score {raw!r} is not a number")
            continue
        first.append(one)
        second.append(two)
        scores.append(score)
    table.keep(first)
    table.report.require_rows("sentence pairs with scores")
    if len(first) < 3:
        raise WorkbenchError(f"{table.source} has {len(first)} usable pair(s); a rank correlation needs at least 3")
    return StsPairs(first, second, scores, table.source, table.report)
