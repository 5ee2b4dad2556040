"""Splitting token ids into sentences, shared by BART's sentence permutation and BERT's next-sentence pairs.

A sentence ends after a run of sentence-final tokens (``stops[i]`` true) or at
the end of the ids; the spans cover the ids without gaps.
"""

from __future__ import annotations

import numpy as np


def sentence_spans(stops: np.ndarray) -> list[tuple[int, int]]:
    """(start, end) of each sentence, given a bool per token telling whether it ends a sentence."""
    stops = np.asarray(stops, dtype=bool)
    n = len(stops)
    ends = np.flatnonzero(stops & ~np.append(stops[1:], False)) + 1
    bounds = [0] + [int(e) for e in ends if e < n] + [n]
    return [(a, b) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]


__all__ = ["sentence_spans"]
