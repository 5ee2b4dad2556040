"""SQuAD 1.1 and 2.0 question answering files, as published.

The JSON is ``{"version": ..., "data": [{"title", "paragraphs": [{"context", "qas": [...]}]}]}``;
``version`` ("1.1", "v2.0") is optional and not needed to tell the two apart. Each question
(``qas`` entry) has ``id``, ``question`` and ``answers`` (``text`` and ``answer_start``, a character
offset into the context that must point at the text). SQuAD 2.0 adds ``is_impossible``: such a question
has ``answers: []`` and becomes a ``QAExample`` with no answers (``example.unanswerable``); its
``plausible_answers`` (the annotators' near misses) are left out, so they never train.

Refused, with the file and the line of the question: an answer not at its ``answer_start``; a question
without answers that is not marked ``is_impossible: true`` (a SQuAD 1.1 file never has one); a question
marked impossible that still has answers; an ``is_impossible`` that is not true or false.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.text_input import read_text_file

SHAPE = "data / paragraphs / context / qas / question / answers"


@dataclass(frozen=True)
class QAExample:
    id: str
    question: str
    context: str
    answers: tuple[str, ...]
    answer_starts: tuple[int, ...]  # character offsets into context

    @property
    def unanswerable(self) -> bool:
        """A SQuAD 2.0 ``is_impossible`` question: no answer in its context (``answers`` is empty)."""
        return not self.answers


@dataclass
class SquadData:
    """A SQuAD file's questions and how many of them have an answer in their context."""

    examples: list[QAExample]
    answerable: int
    unanswerable: int
    version: str | None = None  # the file's ``version`` field, when it has one

    @property
    def is_v2(self) -> bool:
        """Whether any question is unanswerable (SQuAD 2.0's training and scoring apply)."""
        return self.unanswerable > 0


def any_unanswerable(examples: Sequence[Any]) -> bool:
    """Whether any of ``examples`` (QA examples) has no answer, i.e. the no-answer choice is in play."""
    return any(getattr(e, "unanswerable", False) for e in examples)


def line_finder(text: str) -> Callable[[str], int]:
    """A function giving the line on which a string (an id or question) first appears, 1 if nowhere."""
    def line_of(needle: str) -> int:
        at = text.find(json.dumps(needle)[1:-1])
        return text.count("\n", 0, at) + 1 if at >= 0 else 1
    return line_of


def _text(path: str | Path) -> tuple[Path, str]:
    path = Path(path)
    if not path.is_file():
        raise WorkbenchError(f"{path}: no such file")
    text = read_text_file(path)
    if not text.strip():
        raise WorkbenchError(f"{path}: the file is empty")
    return path, text


def _nonempty(path: Path, rows: list, what: str) -> None:
    if not rows:
        raise WorkbenchError(f"{path}: no {what} after the header")


def read_squad_file(path: str | Path) -> SquadData:
    """A SQuAD 1.1 or 2.0 file's questions (see the module); ``WorkbenchError`` for a bad file."""
    path, text = _text(path)
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise WorkbenchError(f"{path}, line {exc.lineno}: not JSON ({exc.msg})") from None
    lines = line_finder(text)
    examples: list[QAExample] = []
    try:
        for article in document["data"]:
            for paragraph in article["paragraphs"]:
                context = paragraph["context"]
                for qa in paragraph["qas"]:
                    examples.append(_question(path, lines, context, qa, len(examples)))
    except (KeyError, TypeError, ValueError) as exc:
        raise WorkbenchError(f"{path}: not SQuAD-style JSON ({type(exc).__name__}: {exc}); expected "
                             f"{SHAPE}") from None
    _nonempty(path, examples, "questions")
    unanswerable = sum(e.unanswerable for e in examples)
    version = document.get("version") if isinstance(document, dict) else None
    return SquadData(examples, len(examples) - unanswerable, unanswerable,
                     str(version) if version is not None else None)


def _question(path: Path, lines: Callable[[str], int], context: str, qa: dict, index: int) -> QAExample:
    def where() -> int:
        return lines(str(qa.get("id", qa["question"])))

    impossible = qa.get("is_impossible", False)
    if not isinstance(impossible, bool):
        raise WorkbenchError(f"{path}, line {where()}: is_impossible is {impossible!r}, not true or false")
    answers, starts = [], []
    for answer in (qa.get("answers", []) if impossible else qa["answers"]):
        start, answer_text = int(answer["answer_start"]), answer["text"]
        if context[start:start + len(answer_text)] != answer_text:
            raise WorkbenchError(
                f"{path}, line {where()}: answer {answer_text!r} is not at answer_start {start} "
                f"of its context (found {context[start:start + len(answer_text)]!r})")
        answers.append(answer_text)
        starts.append(start)
    if impossible and answers:
        raise WorkbenchError(f"{path}, line {where()}: a question marked is_impossible has answers "
                             f"(SQuAD 2.0 keeps them in plausible_answers)")
    if not impossible and not answers:
        raise WorkbenchError(f"{path}, line {where()}: question without answers "
                             f"(an unanswerable SQuAD 2.0 question says \"is_impossible\": true)")
    return QAExample(str(qa.get("id", index)), qa["question"], context, tuple(answers), tuple(starts))
