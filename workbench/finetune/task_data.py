"""A ``FineTuneSpec``'s data: the task's files read, split, and the labels fixed.

Without a validation file a seeded 10% of the training file is held out
(``train_validation_split`` with the spec's seed). Sentence classification
finds its text column(s) by name unless ``text_columns`` chooses one or two
(the second makes a pair task); sequence-to-sequence reads ``source`` and
``target`` unless ``text_columns`` names those two. Labels are the sorted
union over both files (token classification: "O" first), so a label seen only
in validation still has an id.
"""

from __future__ import annotations

from typing import Any

from engine.errors import WorkbenchError
from engine.finetune.job import FineTuneData
from workbench.finetune.spec import FineTuneSpec

VALIDATION_FRACTION = 0.1


def _columns(spec: FineTuneSpec) -> list[str]:
    columns = [c.strip() for c in (spec.text_columns or []) if c.strip()]
    if spec.task == "seq-cls" and len(columns) > 2:
        raise WorkbenchError(f"--text-columns takes one column or two (a pair), not {len(columns)}")
    if spec.task == "seq2seq" and columns and len(columns) != 2:
        raise WorkbenchError("--text-columns for seq2seq names the source and the target column, e.g. source,target")
    if spec.task in ("token-cls", "qa", "preference") and columns:
        raise WorkbenchError(f"--text-columns does not apply to {spec.task} files")
    return columns


def _read(spec: FineTuneSpec, path: str) -> tuple[list[Any], list[str], Any]:
    from engine.data import tasks

    columns = _columns(spec)
    if spec.task == "seq-cls":
        read = tasks.read_classification(path, *(columns or [None]))
        return list(read.examples), list(read.labels), read.report
    if spec.task == "token-cls":
        tagged = tasks.read_bio(path)
        return list(tagged.sentences), list(tagged.labels), tagged.report
    if spec.task == "qa":
        questions = tasks.read_squad(path)
        return list(questions), [], questions.report
    if spec.task == "preference":
        from engine.preference.data import read_preference

        pairs = read_preference(path)
        return list(pairs), [], pairs.report
    rows = tasks.read_seq2seq(path, *columns)
    return list(rows), [], rows.report


def read_task_data(spec: FineTuneSpec) -> FineTuneData:
    """The spec's training and validation examples and labels, and what reading each file kept and skipped
    (``reads``); ``WorkbenchError`` for a bad file."""
    from engine.data.tasks import train_validation_split

    train, labels, train_read = _read(spec, spec.train)
    reads = {"train": train_read}
    if spec.validation:
        validation, more, reads["validation"] = _read(spec, spec.validation)
        labels = _merge_labels(spec.task, labels, more)
    else:
        train, validation = train_validation_split(train, VALIDATION_FRACTION, seed=spec.seed)
    return FineTuneData(spec.task, train, validation, labels, reads)


def _merge_labels(task: str, first: list[str], second: list[str]) -> list[str]:
    if task == "token-cls":
        return ["O"] + sorted((set(first) | set(second)) - {"O"})
    return sorted(set(first) | set(second))
