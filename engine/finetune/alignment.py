"""Bringing word- and character-level labels onto subword tokens (fast tokenizers only).

Token classification: the first subword of each word carries the word's label id; later subwords of the
same word and the special tokens get ``IGNORE_INDEX`` so the loss and the metric skip them.

Extractive QA: an answer's character span becomes token start/end positions via the offset mapping. A long
context is cut into windows of ``max_length`` tokens that overlap by ``stride`` tokens (the tokenizer's
``return_overflowing_tokens``); a window that does not contain the whole answer points both positions at
index 0 (the CLS position, or the first token where there is none), meaning "no answer here" as in
Hugging Face's examples.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from lm_workbench.engine.errors import WorkbenchError

IGNORE_INDEX = -100


def _require_fast(tokenizer) -> None:
    if not getattr(tokenizer, "is_fast", False):
        raise WorkbenchError(f"{type(tokenizer).__name__} is not a fast tokenizer; "
                             f"label alignment needs word ids and offsets")


def align_word_labels(word_ids: Sequence[int | None], word_labels: Sequence[int]) -> list[int]:
    """Per-token labels from ``word_ids`` (as ``BatchEncoding.word_ids()`` gives them) and per-word labels."""
    aligned, previous = [], None
    for word in word_ids:
        if word is None or word == previous:
            aligned.append(IGNORE_INDEX)
        else:
            aligned.append(word_labels[word])
        previous = word
    return aligned


def encode_tagged(tokenizer, words: Sequence[str], label_ids: Sequence[int], max_length: int = 128) -> dict:
    """One pre-split sentence -> ``input_ids``, ``attention_mask`` and aligned ``labels`` (truncated)."""
    _require_fast(tokenizer)
    if len(words) != len(label_ids):
        raise WorkbenchError(f"{len(words)} words but {len(label_ids)} labels")
    encoding = tokenizer(list(words), is_split_into_words=True, truncation=True, max_length=max_length)
    return {"input_ids": encoding["input_ids"], "attention_mask": encoding["attention_mask"],
            "labels": align_word_labels(encoding.word_ids(), label_ids)}


@dataclass(frozen=True)
class QAWindow:
    input_ids: list[int]
    attention_mask: list[int]
    start_position: int
    end_position: int
    offsets: list[tuple[int, int] | None]  # character span of each context token, None elsewhere


def encode_qa(tokenizer, question: str, context: str, answer_start: int | None, answer_text: str | None,
              max_length: int = 384, stride: int = 128) -> list[QAWindow]:
    """Question + context windows with the answer's token positions (both 0 where a window lacks it).

    ``max_length`` bounds each window (question included); ``stride`` is how many context tokens
    consecutive windows share, so an answer cut by one window is whole in the next.
    """
    _require_fast(tokenizer)
    encoding = tokenizer(question, context, truncation="only_second", max_length=max_length, stride=stride,
                         return_overflowing_tokens=True, return_offsets_mapping=True)
    windows = []
    for index in range(len(encoding["input_ids"])):
        sequence_ids = encoding.sequence_ids(index)
        offsets = [tuple(span) if sequence_ids[i] == 1 else None
                   for i, span in enumerate(encoding["offset_mapping"][index])]
        start = end = 0
        if answer_start is not None and answer_text:
            start, end = _token_span(offsets, answer_start, answer_start + len(answer_text))
        windows.append(QAWindow(encoding["input_ids"][index], encoding["attention_mask"][index],
                                start, end, offsets))
    return windows


def _token_span(offsets: list, char_start: int, char_end: int) -> tuple[int, int]:
    context = [i for i, span in enumerate(offsets) if span is not None]
    if not context or offsets[context[0]][0] > char_start or offsets[context[-1]][1] < char_end:
        return 0, 0
    start = next(i for i in context if offsets[i][1] > char_start)
    end = next(i for i in reversed(context) if offsets[i][0] < char_end)
    return start, end


def best_span(start_logits: Sequence[float], end_logits: Sequence[float], offsets: list,
              max_answer_tokens: int = 30, top: int = 20) -> tuple[int, int] | None:
    """The character span of the highest-scoring valid (start <= end, inside the context) token pair."""
    found = scored_best_span(start_logits, end_logits, offsets, max_answer_tokens, top)
    return found[1] if found else None


def scored_best_span(start_logits: Sequence[float], end_logits: Sequence[float], offsets: list,
                     max_answer_tokens: int = 30, top: int = 20) -> tuple[float, tuple[int, int]] | None:
    """``best_span`` with its score (start logit + end logit), to compare spans across windows."""
    ranked_starts = sorted(range(len(start_logits)), key=lambda i: -start_logits[i])[:top]
    ranked_ends = sorted(range(len(end_logits)), key=lambda i: -end_logits[i])[:top]
    best, best_score = None, float("-inf")
    for s in ranked_starts:
        for e in ranked_ends:
            if offsets[s] is None or offsets[e] is None or e < s or e - s + 1 > max_answer_tokens:
                continue
            score = start_logits[s] + end_logits[e]
            if score > best_score:
                best, best_score = (offsets[s][0], offsets[e][1]), score
    return (best_score, best) if best is not None else None
