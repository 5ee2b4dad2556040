"""Exact search: cosine scores as one matrix product over L2-normalised float32 vectors, the top k with ties
broken by corpus order (the earlier passage first)."""

from __future__ import annotations

import numpy as np

from lm_workbench.engine.errors import WorkbenchError


def top_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k highest scores [n], best first; equal scores in corpus order."""
    scores = np.asarray(scores)
    n = scores.shape[0]
    k = min(int(k), n)
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    if k < n:
        kth = np.partition(scores, n - k)[n - k]  # the k-th highest value
        candidates = np.flatnonzero(scores >= kth)  # every index tied with it too, in corpus order
    else:
        candidates = np.arange(n)
    order = np.lexsort((candidates, -scores[candidates].astype(np.float64)))  # score down, then index up
    return candidates[order][:k]


def dense_scores(vectors: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Cosine of the query [H] (or queries [q, H]) with every passage: vectors [n, H] @ query."""
    if vectors.dtype != np.float32:
        raise WorkbenchError("the index holds float32 vectors")
    q = np.asarray(query, dtype=np.float32)
    if q.shape[-1] != vectors.shape[1]:
        raise WorkbenchError(f"a query of {q.shape[-1]} dimensions against an index of {vectors.shape[1]}: "
                             "the index was built with another model")
    return vectors @ q.T


def search(vectors: np.ndarray, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(indices, scores) of the k passages nearest to one unit query vector, best first."""
    scores = dense_scores(vectors, query)
    idx = top_k(scores, k)
    return idx, scores[idx]
