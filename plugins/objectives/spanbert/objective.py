"""SpanBERT's span masking and span-boundary objective (Joshi et al. 2020, "SpanBERT", section 3).

Spans of whole words are masked until 15% of the non-special tokens are
selected: each span's length in words is drawn from a geometric distribution
Geo(p=0.2) truncated to 1..10 (P(l) proportional to 0.2 * 0.8^(l-1), mean
about 3.8) and its first word uniformly among the places where it fits.
Spans never overlap and keep at least one unselected word between them, so
their boundary tokens are never masked. The last span is cut, in whole words,
where the budget is reached (SpanBERT's code cuts it in tokens), so the
budget is exceeded by less than one word and only the last span of an
example can be shorter than drawn. As in BERT, 80% of the spans become mask tokens, 10% random tokens
and 10% stay, but per span: the whole span gets the same treatment.

The loss is the masked-LM loss plus the span-boundary objective (SBO), which
predicts each span token from the span's boundary tokens and its position in
the span (see ``head``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import torch

from lm_workbench.engine.plugin_api import (
    setting,
    IGNORE_INDEX, Batch, Family, LossContext, Objective, Preview, Requirements, VocabInfo, WorkbenchError,
    apply_treatments, budget, check_shares, collate, draw_treatments, kinds_from_codes, masked_lm_forward, model_device,
    require_examples, span_length_pmf, token_cross_entropy, vocab_info,
)
from lm_workbench.plugins.objectives.spanbert.head import SpanBoundaryHead


@dataclass
class Words:
    """The non-special words of an example: token start, token count and segment of each."""

    start: np.ndarray
    length: np.ndarray
    segment: np.ndarray

    @classmethod
    def of(cls, ids: np.ndarray, info: VocabInfo) -> "Words":
        special = info.is_special(ids)
        starts = info.word_starts(ids, special)
        boundaries = np.flatnonzero(starts)
        ends = np.append(boundaries[1:], len(ids))
        keep = ~special[boundaries]
        segment = np.cumsum(special)[boundaries[keep]]
        return cls(boundaries[keep], (ends - boundaries)[keep], segment)


def valid_starts(blocked: np.ndarray, segment: np.ndarray, length: int) -> np.ndarray:
    """First words where ``length`` words fit: none blocked, all in one segment."""
    n = len(blocked)
    if length > n:
        return np.zeros(0, dtype=np.int64)
    cum = np.concatenate([[0], np.cumsum(blocked)])
    free = (cum[length:] - cum[:-length]) == 0
    same = segment[length - 1:] == segment[: n - length + 1]
    return np.flatnonzero(free & same)


@dataclass(frozen=True)
class DrawnSpan:
    first: int  # first word
    words: int  # words masked
    drawn: int  # the length drawn (larger than ``words`` only for a last span cut at the budget)


def draw_spans(words: Words, n_tokens: int, rng: np.random.Generator, pmf: np.ndarray) -> list[DrawnSpan]:
    """The spans in drawing order, until ``n_tokens`` tokens are selected.

    The last span ends at the first of its words that reaches ``n_tokens``.
    """
    blocked = np.zeros(len(words.start), dtype=bool)
    lengths = np.arange(1, len(pmf) + 1)
    longest_fitting = len(pmf)  # lengths above this found no place; they cannot fit later either
    spans: list[DrawnSpan] = []
    selected = 0
    while selected < n_tokens and longest_fitting >= 1:
        drawn = int(rng.choice(lengths, p=pmf))
        if drawn > longest_fitting:
            continue
        places = valid_starts(blocked, words.segment, drawn)
        if len(places) == 0:
            longest_fitting = drawn - 1
            continue
        first = int(places[rng.integers(len(places))])
        cumulative = selected + np.cumsum(words.length[first: first + drawn])
        length = min(drawn, int(np.searchsorted(cumulative, n_tokens)) + 1)  # cut where the budget is reached
        spans.append(DrawnSpan(first, length, drawn))
        blocked[max(0, first - 1): first + length + 1] = True  # the span and a word of margin each side
        selected = int(cumulative[length - 1])
    return spans


class SpanBERT(Objective):
    name = "spanbert"
    api_version = "3.0"
    families = frozenset({Family.ENCODER})
    requires = Requirements(head="mlm", tokens=("mask_token",))
    description = "Mask contiguous spans of whole words; predict them with MLM and from the span's boundaries (SBO)."
    paper = "Joshi et al. 2020, SpanBERT: Improving Pre-training by Representing and Predicting Spans"

    @dataclass
    class Config:
        mask_rate: float = setting(0.15, "Fraction of the non-special tokens masked, in spans.", min=0.0, max=1.0)
        geometric_p: float = setting(
            0.2, "p of the geometric distribution of span lengths in words (mean about 1/p before truncation).",
            min=0.01, max=1.0)
        max_span_words: int = setting(
            10, "Longest span, in words; longer draws are cut off and the rest renormalised.", min=1, max=64)
        mask_token_prob: float = setting(0.8, "Share of the spans replaced by mask tokens.", min=0.0, max=1.0)
        random_token_prob: float = setting(
            0.1, "Share of the spans replaced by random tokens (the rest are kept).", min=0.0, max=1.0)

    def check_config(self, config: Any) -> None:
        super().check_config(config)
        check_shares(self.name, config.mask_token_prob, config.random_token_prob)

    def build_heads(self, config: Any, model_config: Any) -> dict[str, Any]:
        hidden = getattr(model_config, "hidden_size", None)
        vocab = getattr(model_config, "vocab_size", None)
        if not isinstance(hidden, int) or not isinstance(vocab, int):
            raise WorkbenchError("spanbert: the model config names no hidden_size or vocab_size")
        eps = float(getattr(model_config, "layer_norm_eps", 1e-12) or 1e-12)
        return {"sbo": SpanBoundaryHead(hidden, vocab, layer_norm_eps=eps)}

    def corrupt(self, ids: np.ndarray, info: VocabInfo, rng: np.random.Generator, config: Any,
                pmf: np.ndarray) -> Preview:
        words = Words.of(ids, info)
        n = budget(config.mask_rate, int(words.length.sum()))
        spans = draw_spans(words, n, rng, pmf)
        token_spans = []  # (first token, token count)
        for span in spans:
            start = int(words.start[span.first])
            token_spans.append((start, int(words.length[span.first: span.first + span.words].sum())))
        positions = np.array([p for s, k in token_spans for p in range(s, s + k)], dtype=np.int64)
        span_codes = draw_treatments(rng, len(token_spans), config.mask_token_prob, config.random_token_prob)
        codes = np.repeat(span_codes, [k for _, k in token_spans]).astype(np.int64)
        corrupted, kinds = apply_treatments(ids, positions, codes, info, rng)
        labels = np.full(len(ids), IGNORE_INDEX, dtype=np.int64)
        labels[positions] = ids[positions]
        kind_list = kinds_from_codes(kinds)
        return Preview(original=ids.tolist(), input_ids=corrupted.tolist(), labels=labels.tolist(),
                       kinds=kind_list, original_kinds=list(kind_list), spans=token_spans)

    def make_batch(self, token_ids: list[list[int]], tokenizer: Any, rng: np.random.Generator, config: Any,
                   *, example_ids: Sequence[int] | None = None) -> Batch:
        require_examples(token_ids, self.name)
        info = vocab_info(tokenizer)
        pmf = span_length_pmf(config.geometric_p, config.max_span_words)
        previews = [self.corrupt(np.asarray(ids, dtype=np.int64), info, rng, config, pmf) for ids in token_ids]
        return collate(previews, info.pad_id, extras=sbo_targets(previews))

    def loss(self, model: Any, batch: Batch, context: LossContext) -> tuple[Any, dict[str, float]]:
        batch = batch.to(model_device(model))
        out = masked_lm_forward(model, batch.inputs, batch.labels)  # the head at the masked positions only, if allowed
        mlm = token_cross_entropy(out.logits, out.labels)
        e = batch.extras
        head = context.heads["sbo"]
        y = head(out.hidden, e["sbo_batch"], e["sbo_left"], e["sbo_right"], e["sbo_relative"])
        sbo = token_cross_entropy(head.vocabulary_logits(y, model.get_input_embeddings().weight), e["sbo_labels"])
        loss = mlm + sbo
        return loss, {"loss": float(loss.detach()), "mlm": float(mlm.detach()), "sbo": float(sbo.detach())}


def sbo_targets(previews: list[Preview]) -> dict[str, torch.Tensor]:
    """For every span token: its example, the span's boundary positions, its position in the span, its label."""
    rows: list[tuple[int, int, int, int, int]] = []
    for b, p in enumerate(previews):
        last = len(p.input_ids) - 1
        for start, count in p.spans:
            left, right = max(0, start - 1), min(last, start + count)
            rows.extend((b, left, right, i - start, p.original[i]) for i in range(start, start + count))
    table = torch.tensor(rows, dtype=torch.long).reshape(-1, 5)
    names = ("sbo_batch", "sbo_left", "sbo_right", "sbo_relative", "sbo_labels")
    return {name: table[:, k].contiguous() for k, name in enumerate(names)}
