"""Span helpers objectives share: span-length distributions, T5's noise mask and its sentinels.

``span_length_pmf`` is SpanBERT's truncated geometric distribution (Joshi et
al. 2020, section 3.1); ``draw_poisson_lengths`` and ``trim_to_budget`` are
BART's text-infilling draw (Lewis et al. 2020; fairseq's ``DenoisingDataset``);
``random_spans_noise_mask`` and ``apply_sentinels`` are T5's span corruption
(Raffel et al. 2020, section 3.1.4; ``random_spans_noise_mask`` in T5's code).
Plugins reach them through ``lm_workbench.engine.plugin_api``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.objectives.preview import PositionKind


def span_length_pmf(p: float, max_length: int) -> np.ndarray:
    """P(l) for l = 1..max_length: Geo(p) truncated to max_length and renormalised."""
    lengths = np.arange(1, max_length + 1)
    weights = p * (1 - p) ** (lengths - 1)
    return weights / weights.sum()


def draw_poisson_lengths(n_tokens: int, lam: float, rng: np.random.Generator) -> list[int]:
    """Poisson(lam) span lengths, drawn until they cover ``n_tokens`` (none for an empty budget)."""
    lengths: list[int] = []
    total = 0
    while total < n_tokens:
        for length in rng.poisson(lam, size=max(8, n_tokens)).tolist():
            lengths.append(length)
            total += length
            if total >= n_tokens:
                break
    return lengths


def trim_to_budget(lengths: list[int], n_tokens: int) -> list[int]:
    """The lengths with the last one cut so that they sum to ``n_tokens`` (fairseq's "trim to masking budget")."""
    if not lengths:
        return []
    return lengths[:-1] + [n_tokens - sum(lengths[:-1])]


def random_segmentation(n_items: int, n_segments: int, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random split of ``n_items`` into ``n_segments`` positive lengths (T5's ``_random_segmentation``)."""
    first_in_segment = np.zeros(n_items, dtype=np.int64)
    first_in_segment[1:] = rng.permutation(np.arange(n_items - 1) < n_segments - 1)
    segment = np.cumsum(first_in_segment)
    return np.bincount(segment, minlength=n_segments)


def random_spans_noise_mask(length: int, rng: np.random.Generator, noise_density: float = 0.15,
                            mean_span_length: float = 3.0, max_spans: int | None = None) -> np.ndarray:
    """A boolean noise mask of ``length`` tokens, as T5's ``random_spans_noise_mask``.

    n_noise = round(density * length) (at least 1, at most length - 1), in
    round(n_noise / mean_span_length) spans (at least 1, at most
    ``max_spans``); noise and non-noise lengths are uniformly random splits and
    interleave starting with non-noise. Rounding is half-to-even, as ``tf.round``.
    """
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
    """Replace each run of noise by the next sentinel; the target is sentinel + run for each, a closing sentinel, EOS.

    A tokenizer with k sentinels allows at most k - 1 runs (``WorkbenchError`` beyond).
    """
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


__all__ = ["Sentinels", "apply_sentinels", "draw_poisson_lengths", "random_segmentation",
           "random_spans_noise_mask", "span_length_pmf", "trim_to_budget"]
