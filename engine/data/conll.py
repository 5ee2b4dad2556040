"""Word-per-line files: CoNLL-2003 and CoNLL-U, as published.

- **CoNLL-U** (``.conllu``, or a file whose first word line has 10 tab-separated
  columns): the word is FORM (column 2), the tag UPOS (column 4) unless
  ``tag_column`` names another (1-based: 5 is XPOS, 8 DEPREL). Comment lines
  (``#``) are skipped; multiword ranges (``3-4``) and empty nodes (``5.1``) are
  passed over, because their words are on their own lines (ranges) or are not
  in the text at all (empty nodes), and they are counted in the report.
- **CoNLL** (anything else, e.g. CoNLL-2003's ``word POS chunk NER``):
  whitespace-separated columns, the word first, the tag in the last column
  unless ``tag_column`` chooses one by position (1-based; 2 is CoNLL-2003's
  POS). ``-DOCSTART-`` lines are passed over and counted, and so are ``#``
  comment lines between sentences (inside one, ``#`` is a word).

A blank line ends a sentence. A line the reader cannot use (too few columns, an
empty tag) leaves its whole sentence out, reported with the line and why: a
sentence with a word missing would teach wrong positions. When every tag has
the BIO shape (``O``, ``B-X``, ``I-X``) and some entity starts with ``I-``
(CoNLL-2003's IOB1), the tags are converted to IOB2 (every entity starts with
``B-``) and the report says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from lm_workbench.engine.data.rows import ReadReport
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.text_input import read_text_file

CONLLU_COLUMNS = 10
CONLLU_FORM, CONLLU_UPOS = 2, 4
DOCSTART = "-DOCSTART-"
_BIO = re.compile(r"^(O|[BI]-.+)$")


@dataclass
class TaggedWords:
    """Sentences of words, each word with a tag, and what the reader did to get them."""

    sentences: list[list[str]]
    tags: list[list[str]]
    report: ReadReport
    format: str  # "conll" or "conllu"
    lines: list[int] = field(default_factory=list)  # the line each sentence's first word is on

    @property
    def words(self) -> int:
        return sum(len(s) for s in self.sentences)


def file_lines(path: str | Path) -> tuple[Path, list[str]]:
    """A file's lines, read by the checked reader (``lm_workbench.engine.text_input``: a BOM dropped; a binary
    file or bytes that are not UTF-8 refused with their byte and line)."""
    p = Path(path)
    return p, read_text_file(p).splitlines()


def is_conllu(path: Path, lines: list[str]) -> bool:
    if path.suffix.lower() == ".conllu":
        return True
    first = next((ln for ln in lines if ln.strip() and not ln.startswith("#")), "")
    return len(first.split("\t")) == CONLLU_COLUMNS


def read_conll(path: str | Path, tag_column: int | None = None) -> TaggedWords:
    """Sentences and tags from a CoNLL or CoNLL-U file (see the module doc); ``tag_column`` is 1-based."""
    p, lines = file_lines(path)
    conllu = is_conllu(p, lines)
    if tag_column is not None and tag_column < 2:
        raise WorkbenchError(f"the tag column is counted from 1 and column 1 holds the word: {tag_column} "
                             f"cannot be the tag")
    report = ReadReport(str(p), unit="sentences")
    sentences: list[list[str]] = []
    tags: list[list[str]] = []
    words: list[str] = []
    labels: list[str] = []
    starts: list[int] = []
    problem: tuple[int, str] | None = None
    first_line = 0
    passed = {"multiword": 0, "empty": 0, "docstart": 0}

    def close() -> None:
        nonlocal problem
        if problem is not None:
            report.skip(*problem)
        elif words:
            sentences.append(list(words))
            tags.append(list(labels))
            starts.append(first_line)
        words.clear()
        labels.clear()
        problem = None

    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip("\r\n")
        if not line.strip():
            close()
            continue
        if line.startswith("#") and (conllu or not words):  # CoNLL: a comment only between sentences
            continue
        if conllu:
            cols = line.split("\t")
            if len(cols) != CONLLU_COLUMNS:
                problem = problem or (number, f"{len(cols)} tab-separated column(s), a CoNLL-U word line has "
                                              f"{CONLLU_COLUMNS}; its sentence is left out")
                continue
            if "-" in cols[0]:
                passed["multiword"] += 1
                continue
            if "." in cols[0]:
                passed["empty"] += 1
                continue
            at = tag_column or CONLLU_UPOS
            if at > CONLLU_COLUMNS:
                raise WorkbenchError(f"{p}: CoNLL-U has {CONLLU_COLUMNS} columns; there is no column {at}")
            word, tag = cols[CONLLU_FORM - 1], cols[at - 1]
        else:
            cols = line.split()
            if cols[0] == DOCSTART:
                passed["docstart"] += 1
                continue
            at = tag_column or len(cols)
            if len(cols) < 2 or at > len(cols):
                problem = problem or (number, f"{len(cols)} column(s); a word and its tag (column {at}) are "
                                              f"needed; its sentence is left out")
                continue
            word, tag = cols[0], cols[at - 1]
        if not word.strip() or not tag.strip() or tag == "_":
            problem = problem or (number, "the word or its tag is missing ('_'); its sentence is left out")
            continue
        if not words:
            first_line = number
        words.append(word)
        labels.append(tag)
    close()
    report.rows_read = len(sentences)
    if passed["docstart"]:
        report.note(f"passed over {passed['docstart']} -DOCSTART- line(s)")
    if passed["multiword"] or passed["empty"]:
        report.note(f"passed over {passed['multiword']} multiword token(s) (ranges such as 3-4) and "
                    f"{passed['empty']} empty node(s) (such as 5.1)")
    changed = convert_iob1(tags)
    if changed:
        report.note(f"converted IOB1 tags to IOB2 ({changed} entit{'y' if changed == 1 else 'ies'} began "
                    f"with I-)")
    report.require_rows("tagged sentences (one word and its tag per line, a blank line between sentences)")
    return TaggedWords(sentences, tags, report, "conllu" if conllu else "conll", starts)


def is_bio(tags: list[list[str]]) -> bool:
    return all(_BIO.match(t) for sentence in tags for t in sentence)


def convert_iob1(tags: list[list[str]]) -> int:
    """In place: when every tag is BIO-shaped, an entity that starts with ``I-X`` (IOB1) gets ``B-X`` (IOB2).

    Returns how many tags changed (0 for IOB2 files and for tags that are not BIO-shaped, e.g. POS)."""
    if not is_bio(tags):
        return 0
    changed = 0
    for sentence in tags:
        previous = "O"
        for i, tag in enumerate(sentence):
            if tag.startswith("I-") and previous[2:] != tag[2:]:
                sentence[i] = "B-" + tag[2:]
                changed += 1
            previous = tag
    return changed
