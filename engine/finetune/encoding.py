"""Turning each task's examples into model inputs, and padded rows into a training ``Batch``.

One encoded example ("feature") is a dict of lists: ``input_ids``, ``attention_mask`` (and
``token_type_ids`` where the tokenizer makes them) plus its target:

- ``seq-cls``: ``label`` (an int); pairs are encoded as the tokenizer's text pair;
- ``token-cls``: ``labels`` per token, the first subword of each word labelled, the rest -100
  (``lm_workbench.engine.finetune.alignment.encode_tagged``);
- ``qa``: one feature per context window (``encode_qa``) with ``start``/``end`` token positions and
  ``example`` (the question it came from); both positions 0 where the window lacks the answer or the
  question has none (SQuAD 2.0's unanswerable questions);
- ``seq2seq``: ``labels``, the target's token ids.

A row longer than ``max_length`` tokens is cut to it (the tokenizer's truncation: a text's end; a pair's
longer side first; a tagged sentence's last words; a seq2seq source's or target's end) and counted:
``encode_task_counted`` returns how many rows were cut, which the run's summary says in ``notes``
(``cut_note``). QA cuts nothing: its contexts are read in overlapping windows.

``collate`` pads a list of features into a ``Batch`` whose ``inputs`` go to the model and whose
``labels`` (QA: start positions, end positions in ``extras``) go to its loss.
"""

from __future__ import annotations

from typing import Any, Sequence

import torch

from lm_workbench.engine.data.squad import QAExample
from lm_workbench.engine.data.tasks import ClassificationExample, Seq2SeqExample, TaggedSentence
from lm_workbench.engine.finetune.alignment import IGNORE_INDEX, encode_qa, encode_tagged
from lm_workbench.engine.objectives.batching import Batch, pad_rows

Feature = dict[str, Any]


def _inputs(encoding: Any) -> Feature:
    feature = {"input_ids": list(encoding["input_ids"]), "attention_mask": list(encoding["attention_mask"])}
    if "token_type_ids" in encoding:
        feature["token_type_ids"] = list(encoding["token_type_ids"])
    return feature


def encode_classification(tokenizer: Any, examples: Sequence[ClassificationExample], labels: Sequence[str],
                          max_length: int) -> list[Feature]:
    ids = {label: i for i, label in enumerate(labels)}
    out = []
    for example in examples:
        encoding = tokenizer(example.text, example.text_pair, truncation=True, max_length=max_length)
        out.append(_inputs(encoding) | {"label": ids.get(example.label, IGNORE_INDEX)})
    return out


def encode_sentences(tokenizer: Any, sentences: Sequence[TaggedSentence], labels: Sequence[str],
                     max_length: int) -> list[Feature]:
    ids = {label: i for i, label in enumerate(labels)}
    out = []
    for sentence in sentences:
        tag_ids = [ids.get(tag, IGNORE_INDEX) for tag in sentence.tags]
        out.append(encode_tagged(tokenizer, sentence.words, tag_ids, max_length=max_length))
    return out


def qa_stride(max_length: int) -> int:
    """Context tokens shared by consecutive QA windows: a quarter of the window, at most 128."""
    return max(1, min(128, max_length // 4))


def encode_questions(tokenizer: Any, examples: Sequence[QAExample], max_length: int) -> list[Feature]:
    """Every window of every question (training uses each question's first answer). An unanswerable
    question (SQuAD 2.0) trains the no-answer position: start = end = 0 in every window, as does a window
    of an answerable question that lacks the answer (BERT's SQuAD 2.0 recipe)."""
    out = []
    for index, example in enumerate(examples):
        start, text = (example.answer_starts[0], example.answers[0]) if example.answers else (None, None)
        windows = encode_qa(tokenizer, example.question, example.context, start, text,
                            max_length=max_length, stride=qa_stride(max_length))
        for window in windows:
            out.append({"input_ids": window.input_ids, "attention_mask": window.attention_mask,
                        "start": window.start_position, "end": window.end_position, "example": index,
                        "offsets": window.offsets})
    return out


def encode_pairs(tokenizer: Any, examples: Sequence[Seq2SeqExample], max_length: int) -> list[Feature]:
    out = []
    for example in examples:
        encoding = tokenizer(example.source, text_target=example.target, truncation=True, max_length=max_length)
        out.append(_inputs(encoding) | {"labels": list(encoding["labels"])})
    return out


def _longer(tokenizer: Any, feature: Feature, max_length: int, *args: Any, **kwargs: Any) -> bool:
    """Whether a feature cut at ``max_length`` (as long as that) came from a longer row (encoded again whole)."""
    if len(feature["input_ids"]) < max_length and len(feature.get("labels") or ()) < max_length:
        return False
    whole = tokenizer(*args, **kwargs)
    return len(whole["input_ids"]) > max_length or len(whole.get("labels") or ()) > max_length


def rows_cut(task: str, tokenizer: Any, data: Sequence[Any], features: Sequence[Feature], max_length: int) -> int:
    """How many rows of ``data`` (encoded as ``features``, one per row) are longer than ``max_length`` tokens
    and were cut (QA: none; its contexts are windowed)."""
    if task == "seq-cls":
        return sum(_longer(tokenizer, f, max_length, e.text, e.text_pair) for e, f in zip(data, features))
    if task == "token-cls":
        return sum(_longer(tokenizer, f, max_length, list(e.words), is_split_into_words=True)
                   for e, f in zip(data, features))
    if task == "seq2seq":
        return sum(_longer(tokenizer, f, max_length, e.source, text_target=e.target) for e, f in zip(data, features))
    return 0


def cut_note(cut: int, rows: int, max_length: int, role: str) -> str | None:
    """The summary's line for ``cut`` of ``rows`` ``role`` rows cut to ``max_length`` tokens (None: none)."""
    if not cut:
        return None
    return (f"{cut} of {rows} {role} rows were longer than {max_length} tokens (max length) and were cut to it: "
            "the model saw only their first tokens")


def encode_task_counted(task: str, tokenizer: Any, data: Sequence[Any], labels: Sequence[str],
                        max_length: int) -> tuple[list[Feature], int]:
    """``encode_task``'s features and how many rows were cut to ``max_length``."""
    features = encode_task(task, tokenizer, data, labels, max_length)
    return features, rows_cut(task, tokenizer, data, features, max_length)


def encode_task(task: str, tokenizer: Any, data: Sequence[Any], labels: Sequence[str],
                max_length: int) -> list[Feature]:
    """``data`` (the reader's examples for ``task``) as features."""
    if task == "seq-cls":
        return encode_classification(tokenizer, data, labels, max_length)
    if task == "token-cls":
        return encode_sentences(tokenizer, data, labels, max_length)
    if task == "qa":
        return encode_questions(tokenizer, data, max_length)
    return encode_pairs(tokenizer, data, max_length)


def _tensor(rows: Sequence[Sequence[int]], value: int) -> torch.Tensor:
    return torch.from_numpy(pad_rows(rows, value))


def collate(task: str, features: Sequence[Feature], pad_id: int) -> Batch:
    """Right-pad ``features`` into one ``Batch`` (attention mask 0 and labels -100 on the padding)."""
    inputs = {"input_ids": _tensor([f["input_ids"] for f in features], pad_id),
              "attention_mask": _tensor([f["attention_mask"] for f in features], 0)}
    if all("token_type_ids" in f for f in features) and features:
        inputs["token_type_ids"] = _tensor([f["token_type_ids"] for f in features], 0)
    extras: dict[str, torch.Tensor] = {}
    if task == "seq-cls":
        labels = torch.tensor([f["label"] for f in features], dtype=torch.long)
    elif task == "qa":
        labels = torch.tensor([f["start"] for f in features], dtype=torch.long)
        extras["end_positions"] = torch.tensor([f["end"] for f in features], dtype=torch.long)
    else:
        labels = _tensor([f["labels"] for f in features], IGNORE_INDEX)
    return Batch(inputs=inputs, labels=labels, previews=[], extras=extras)


def targets(task: str, batch: Batch) -> dict[str, torch.Tensor]:
    """The keyword arguments that make a task model compute its loss on ``batch``."""
    if task == "qa":
        return {"start_positions": batch.labels, "end_positions": batch.extras["end_positions"]}
    return {"labels": batch.labels}


def batches_of(task: str, features: Sequence[Feature], pad_id: int, size: int) -> list[Batch]:
    """``features`` in order, ``size`` at a time."""
    return [collate(task, features[i:i + size], pad_id) for i in range(0, len(features), size)]


