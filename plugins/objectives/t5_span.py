"""T5's span corruption (Raffel et al. 2020, "Exploring the Limits of Transfer Learning", section 3.1.4).

As T5's ``random_spans_noise_mask``: of the L non-special tokens,
n_noise = round(0.15 L) are noise (at least 1, at most L - 1), in
n_spans = round(n_noise / 3) spans (at least 1); the noise lengths are a
uniformly random split of n_noise into n_spans positive parts, the non-noise
lengths likewise, and they interleave starting with non-noise (so the text
ends in noise). Rounding is half-to-even, as ``tf.round``. Each noise span is
replaced in the input by its own sentinel, in order (<extra_id_0>,
<extra_id_1>, ...); the target lists each sentinel followed by the span it
stands for, then a closing sentinel and EOS: "Thank you <X> me to your party
<Y> week." -> "<X> for inviting <Y> last <Z>". A tokenizer with k sentinels
allows at most k - 1 spans.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from engine.plugin_api import (
    Batch, Family, Objective, PositionKind, Preview, Requirements, WorkbenchError, collate,
    require_examples, seq2seq_denoising_loss, vocab_info,
)


def random_segmentation(n_items: int, n_segments: int, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random split of ``n_items`` into ``n_segments`` positive lengths (T5's ``_random_segmentation``)."""
    first_in_segment = np.zeros(n_items, dtype=np.int64)
    first_in_segment[1:] = rng.permutation(np.arange(n_items - 1) < n_segments - 1)
    segment = np.cumsum(first_in_segment)
    return np.bincount(segment, minlength=n_segments)


def random_spans_noise_mask(length: int, rng: np.random.Generator, noise_density: float = 0.15,
                            mean_span_length: float = 3.0, max_spans: int | None = None) -> np.ndarray:
    """A boolean noise mask of ``length`` tokens, as T5's ``random_spans_noise_mask``."""
    original_length = length
    length = max(length, 2)
    n_noise = int(np.round(length * noise_density))
    n_noise = min(max(n_noise, 1), length - 1)
    n_spans = max(int(np.round(n_noise / mean_span_length)), 1)
    if max_spans is not None:
        n_spans = max(1, min(n_spans, max_spans))
    n_nonnoise = length - n_noise
    n_spans = min(n_spans, n_nonnoise)
    noise_lengths = random_segmentation(n_noise, n_spans, rng)
    nonnoise_lengths = random_segmentation(n_nonnoise, n_spans, rng)
    interleaved = np.stack([nonnoise_lengths, noise_lengths], axis=1).reshape(-1)
    is_noise = np.repeat(np.tile([False, True], n_spans), interleaved)
    return is_noise[:original_length]


@dataclass
class Sentinels:
    """The result of ``apply_sentinels``."""

    inputs: list[int]
    targets: list[int]
    kinds: list[PositionKind]
    origin: list[int]
    spans: list[tuple[int, int]]  # (input position of the sentinel, tokens it stands for)


def apply_sentinels(ids: Sequence[int], noise_mask: Sequence[bool], sentinel_ids: Sequence[int],
                    eos_id: int | None = None) -> Sentinels:
    """Replace each run of noise by the next sentinel; the target is sentinel + run for each, a closing sentinel, EOS."""
    ids = [int(i) for i in ids]
    noise = [bool(x) for x in noise_mask]
    if len(noise) != len(ids):
        raise ValueError(f"noise mask of {len(noise)} for {len(ids)} tokens")
    inputs: list[int] = []
    targets: list[int] = []
    kinds: list[PositionKind] = []
    origin: list[int] = []
    spans: list[tuple[int, int]] = []
    for i, (token, is_noise) in enumerate(zip(ids, noise)):
        if is_noise and (i == 0 or not noise[i - 1]):
            if len(spans) + 1 >= len(sentinel_ids):
                raise WorkbenchError(
                    f"t5-span: the text needs more than {len(sentinel_ids)} sentinel tokens; shorten it")
            sentinel = sentinel_ids[len(spans)]
            spans.append((len(inputs), 0))
            inputs.append(sentinel)
            kinds.append(PositionKind.SENTINEL)
            origin.append(-1)
            targets.append(sentinel)
        if is_noise:
            spans[-1] = (spans[-1][0], spans[-1][1] + 1)
            targets.append(token)
        else:
            inputs.append(token)
            kinds.append(PositionKind.UNCHANGED)
            origin.append(i)
    targets.append(sentinel_ids[len(spans)])
    if eos_id is not None:
        targets.append(eos_id)
    return Sentinels(inputs, targets, kinds, origin, spans)


class T5SpanCorruption(Objective):
    name = "t5-span"
    families = frozenset({Family.ENCODER_DECODER})
    requires = Requirements(head="seq2seq-lm", tokens=("sentinels",))
    description = "Replace random spans (15% of the tokens, mean length 3) by sentinels; predict the spans."
    paper = "Raffel et al. 2020, Exploring the Limits of Transfer Learning with a Unified Text-to-Text Transformer"

    @dataclass
    class Config:
        noise_density: float = field(default=0.15, metadata={
            "help": "Fraction of the non-special tokens hidden in spans.", "min": 0.0, "max": 0.95})
        mean_span_length: float = field(default=3.0, metadata={
            "help": "Mean length of a noise span, in tokens.", "min": 1.0, "max": 64.0})

    def corrupt(self, ids: np.ndarray, info: Any, rng: np.random.Generator, config: Any) -> Preview:
        if len(info.sentinel_ids) < 2:
            raise WorkbenchError("t5-span needs sentinel tokens (<extra_id_0>, ...), and the tokenizer has none")
        eligible = np.flatnonzero(~info.is_special(ids))
        noise = np.zeros(len(ids), dtype=bool)
        if config.noise_density > 0 and len(eligible):
            noise[eligible] = random_spans_noise_mask(len(eligible), rng, config.noise_density,
                                                      config.mean_span_length, len(info.sentinel_ids) - 1)
        result = apply_sentinels(ids, noise, info.sentinel_ids, info.eos_id)
        original_kinds = [PositionKind.MASKED if x else PositionKind.UNCHANGED for x in noise]
        return Preview(original=ids.tolist(), input_ids=result.inputs, labels=result.targets, kinds=result.kinds,
                       original_kinds=original_kinds, origin=result.origin, spans=result.spans,
                       labels_aligned=False)

    def make_batch(self, token_ids: list[list[int]], tokenizer: Any, rng: np.random.Generator, config: Any,
                   *, example_ids: Sequence[int] | None = None) -> Batch:
        require_examples(token_ids, self.name)
        info = vocab_info(tokenizer)
        previews = [self.corrupt(np.asarray(ids, dtype=np.int64), info, rng, config) for ids in token_ids]
        return collate(previews, info.pad_id)

    def loss(self, model: Any, heads: dict[str, Any], batch: Batch) -> tuple[Any, dict[str, float]]:
        return seq2seq_denoising_loss(model, batch)
