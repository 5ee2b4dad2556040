"""Sentence similarity per layer: cosine of pooled vectors against gold scores, by Spearman's rho.

As Reimers & Gurevych (2019) evaluate sentence embeddings: each pair is
scored by the cosine of its two sentence vectors, and the scores are compared
with the gold similarity by rank correlation (Spearman's rho, ties given
their average rank; written here, and checked against scipy in the tests). A layer whose rho is not defined
(its vectors all alike) gets None and a note, never nan.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.maths.undefined import add as _undefined


def pair_cosines(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Row-wise cosine of two [n, H] arrays -> [n] (0 where a vector is zero)."""
    a = np.asarray(first, dtype=np.float64)
    b = np.asarray(second, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 2:
        raise WorkbenchError(f"pair vectors must both be [n, hidden], got {a.shape} and {b.shape}")
    norms = np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)
    dots = np.einsum("nh,nh->n", a, b)
    return np.divide(dots, norms, out=np.zeros_like(dots), where=norms > 0)


def average_ranks(values: np.ndarray) -> np.ndarray:
    """1-based ranks of ``values`` [n]; tied values share the mean of the ranks they span."""
    order = np.argsort(values, kind="mergesort")
    ordered = values[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])  # first position of each run of ties
    ends = np.r_[starts[1:], ordered.size]  # one past its last
    run_rank = (starts + ends + 1) / 2.0  # mean of the 1-based positions start+1..end
    ranks = np.empty(values.size, dtype=np.float64)
    ranks[order] = np.repeat(run_rank, ends - starts)
    return ranks


def spearman(predicted: Sequence[float], gold: Sequence[float], notes: list[str] | None = None) -> float | None:
    """Spearman's rho: the Pearson correlation of the average ranks. None when it is not defined, with the reason
    appended to ``notes`` (``lm_workbench.engine.maths.undefined``): fewer than three pairs (two points always give
    ±1, one or none give nothing) or either side constant (no ranks to correlate)."""
    p = np.asarray(predicted, dtype=np.float64)
    g = np.asarray(gold, dtype=np.float64)
    if p.shape != g.shape or p.ndim != 1:
        raise WorkbenchError(f"Spearman's rho needs two equal lists of scores, got {p.size} and {g.size}")
    if p.size < 3:
        _undefined(notes, "spearman", f"{p.size} pair(s); a rank correlation needs at least 3 (two points always "
                                      "give ±1)")
        return None
    if np.ptp(g) == 0:
        _undefined(notes, "spearman", f"every gold score is {g[0]:g}; a correlation needs scores that differ")
        return None
    if np.ptp(p) == 0:
        _undefined(notes, "spearman", "every pair has the same cosine (the vectors are all alike); a correlation "
                                      "needs values that differ")
        return None
    rp = average_ranks(p) - (p.size + 1) / 2.0
    rg = average_ranks(g) - (g.size + 1) / 2.0
    return float(np.dot(rp, rg) / np.sqrt(np.dot(rp, rp) * np.dot(rg, rg)))
