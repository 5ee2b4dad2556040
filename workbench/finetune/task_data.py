"""A ``FineTuneSpec``'s data: the task's files read, split, and the labels fixed.

Without a validation file a seeded 10% of the training file is held out. Sentence classification
finds its text column(s) by name unless ``text_columns`` chooses one or two
(the second makes a pair task); sequence-to-sequence reads ``source`` and
``target`` unless ``text_columns`` names those two.

Labels follow the label rule (``lm_workbench.engine.data.labels``, docs/data-formats.md), which replaced the
earlier "sorted union of the labels of both files": the model's labels are those the *training* examples carry
(sorted; token classification: "O" first). The automatic hold-out is stratified and keeps every class in training
(a class too small to split stays there, said in ``notes``); label cells that differ only in numeric spelling
(``1``, ``1.0``, `` 1``) are one class across both files, said; a validation label that training lacks is refused
in one line, or with ``keep_unseen_labels`` (``--keep-unseen-labels``) its examples are left out of validation and
counted; the one-class refusal is made on the training examples.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.finetune.train import FineTuneData
from lm_workbench.engine.finetune.names import LABELLED_TASKS
from lm_workbench.finetune.spec import FineTuneSpec

VALIDATION_FRACTION = 0.1


def _columns(spec: FineTuneSpec) -> list[str]:
    columns = [c.strip() for c in (spec.text_columns or []) if c.strip()]
    if spec.task == "seq-cls" and len(columns) > 2:
        raise WorkbenchError(f"--text-columns takes one column or two (a pair), not {len(columns)}")
    if spec.task == "seq2seq" and columns and len(columns) != 2:
        raise WorkbenchError("--text-columns for seq2seq names the source and the target column, e.g. source,target")
    if spec.task == "sentence-embedding":
        return columns
    if spec.task in ("token-cls", "qa", "instruct", "preference") and columns:
        raise WorkbenchError(f"--text-columns does not apply to {spec.task} files")
    return columns


def _read(spec: FineTuneSpec, path: str) -> tuple[list[Any], Any]:
    """The examples of a task without labels (sequence classification and tagging: ``_labelled_data``)."""
    from lm_workbench.engine.data import tasks

    columns = _columns(spec)
    if spec.task == "sentence-embedding":
        from lm_workbench.engine.sentence.data import read_sentence_data

        read = read_sentence_data(path, columns or None, tsv_quoting=spec.tsv_quoting)
        return list(read), read.report
    if spec.task == "instruct":
        from lm_workbench.engine.instruct.data import read_instructions

        records = read_instructions(path)
        return list(records), records.report
    if spec.task == "qa":
        questions = tasks.read_squad(path)
        return list(questions), questions.report
    if spec.task == "preference":
        from lm_workbench.engine.preference.data import read_preference

        pairs = read_preference(path, tsv_quoting=spec.tsv_quoting)
        return list(pairs), pairs.report
    rows = tasks.read_seq2seq(path, *columns, tsv_quoting=spec.tsv_quoting)
    return list(rows), rows.report


def read_task_data(spec: FineTuneSpec, base: Any = None) -> FineTuneData:
    """The spec's training and validation examples and labels, what reading each file kept and skipped
    (``reads``) and what the label rule said (``notes``); ``WorkbenchError`` for a bad file or a refused split."""
    from lm_workbench.engine.data.tasks import train_validation_split

    if spec.task in LABELLED_TASKS:
        data = _labelled_data(spec)
    else:
        train, train_read = _read(spec, spec.train)
        reads = {"train": train_read}
        if spec.validation:
            validation, reads["validation"] = _read(spec, spec.validation)
        else:
            train, validation = train_validation_split(train, VALIDATION_FRACTION, seed=spec.seed)
        data = FineTuneData(spec.task, train, validation, [], reads)
    if spec.task == "sentence-embedding":
        data.sentence = sentence_setup(spec, data, base)
    return data


def _labelled_data(spec: FineTuneSpec) -> FineTuneData:
    """Sequence or token classification under the label rule (see the module docstring)."""
    from lm_workbench.engine.data import labels as rule
    from lm_workbench.engine.data import tasks

    tokens = spec.task == "token-cls"
    spellings = rule.Spellings()
    train_name = Path(spec.train).name

    def read(path: str, min_labels: int) -> Any:
        if tokens:
            return tasks.read_bio(path)
        return tasks.read_classification(path, *(_columns(spec) or [None]), spellings=spellings,
                                         min_labels=min_labels, tsv_quoting=spec.tsv_quoting)

    first = read(spec.train, 2)
    examples = list(first.sentences if tokens else first.examples)
    reads = {"train": first.report}
    notes: list[str] = []
    said: list[str] = []
    if spec.validation:
        second = read(spec.validation, 1)
        reads["validation"] = second.report
        train, validation = examples, list(second.sentences if tokens else second.examples)
        split, trained_on = f"the validation file ({Path(spec.validation).name})", f"the training file ({train_name})"
    else:
        if tokens:
            held = rule.covering_holdout([s.tags for s in examples], VALIDATION_FRACTION, spec.seed, ignore={"O"})
        else:
            held = rule.stratified_holdout([e.label for e in examples], VALIDATION_FRACTION, spec.seed)
        train, validation = held.take(examples)
        notes += held.notes
        said = held.alone
        split, trained_on = f"the validation examples held out of {train_name}", "training"
    notes += spellings.notes()
    if tokens:
        entity_tags = sorted({t for s in train for t in s.tags} - {"O"})
        if not entity_tags:
            raise WorkbenchError(f"the training sentences ({train_name}) carry no entity tag (every tag is O); token "
                                 "classification learns entity tags such as B-PER")
        labels = ["O"] + entity_tags
    else:
        labels = sorted({e.label for e in train})
        rule.require_classes(labels, f"the training set ({train_name})")
    check = rule.unseen_labels(labels, [s.tags if tokens else s.label for s in validation], split=split,
                               keep=spec.keep_unseen_labels, trained_on=trained_on, ignore={"O"} if tokens else (),
                               said=said)
    validation = [validation[i] for i in check.kept]
    notes += check.notes
    if not validation:
        raise WorkbenchError(f"no validation example is left: every one of {split} has a label that {trained_on} "
                             "never shows")
    return FineTuneData(spec.task, train, validation, labels, reads, notes=notes)


def sentence_setup(spec: FineTuneSpec, data: FineTuneData, base: Any = None) -> Any:
    """The sentence task's loss (by the data unless chosen), pooling and margin, checked against the data, with
    the notes the summary shows (what the validation gives, negatives left out)."""
    from lm_workbench.engine.finetune.names import TRIPLET_MARGIN
    from lm_workbench.engine.sentence.batches import check_in_batch, scores_vary
    from lm_workbench.engine.sentence.data import ScoredPair
    from lm_workbench.engine.sentence.training import SentenceSetup, check_setup, default_loss, suits_loss
    from lm_workbench.engine.maths.undefined import note as undefined_note

    loss = spec.loss or default_loss(data.train)
    setup = SentenceSetup(loss=loss, pooling=spec.pooling or "mean",
                          margin=spec.margin if spec.margin is not None else TRIPLET_MARGIN)
    check_setup(setup, data.train, is_decoder=_is_decoder(base))
    check_in_batch(loss, spec.batch_size, len(data.train))  # a loss 0 by construction is refused before training
    if loss == "cosent" and not scores_vary([e.score for e in data.train]):
        raise WorkbenchError(f"the cosent loss ranks pairs of different scores, and every training score is "
                             f"{data.train[0].score:g}: the loss is 0 by construction; use the cosine loss")
    if isinstance(data.train[0], ScoredPair):
        setup.score_max = max(e.score for e in data.train)
        if loss == "cosine":
            setup.notes.append(f"cosine loss: cos(u, v) regressed to score / {setup.score_max:g}")
        if not setup.score_max > 0:
            raise WorkbenchError("the cosine loss regresses cos(u, v) to score / max score, and the largest score "
                                 f"is {setup.score_max:g}; use the cosent loss for such scores")
    elif loss == "mnrl":
        with_negative = [e.negative is not None for e in data.train]
        setup.use_negatives = all(with_negative)
        if any(with_negative) and not all(with_negative):
            setup.notes.append(f"in-batch negatives only: {with_negative.count(False)} example(s) have no hard "
                               "negative, so none is used")
    validation_scored = bool(data.validation) and isinstance(data.validation[0], ScoredPair)
    if validation_scored:
        setup.notes.append("validation: Spearman's rho of the validation pairs' cosines against their scores, "
                           "each epoch")
    else:
        setup.notes.append("validation: the loss on held-out triplets only (no Spearman without scored pairs; "
                           "give --validation with sentence1, sentence2, score)")
    if not suits_loss(data.validation, loss):
        setup.count(undefined_note("validation_loss", f"the {loss} loss cannot score the validation examples "
                                                      "(scored pairs for cosine and cosent, triplets otherwise)"))
    for report in data.reads.values():
        for note in getattr(report, "notes", []):
            if note.startswith("NLI:"):
                setup.notes.append(note)
    return setup


def _is_decoder(base: Any) -> bool:
    """Whether the base in folder ``base`` is a left-to-right model ([CLS] pooling makes no sense there)."""
    from transformers import AutoConfig

    from lm_workbench.engine.models.families import Family, detect_family

    if base is None:
        return False
    try:
        return detect_family(AutoConfig.from_pretrained(base)) is Family.DECODER
    except (OSError, ValueError):
        return False
