"""Nearest neighbours by cosine similarity, with ties reported as ties.

Static vectors of one word are identical, so a query on the static baseline
returns many neighbours with exactly the same score. Sorting those by corpus
position would quietly favour the first lines of the file; instead every
group of scores equal within ``TIE_TOLERANCE`` shares one rank (competition
ranking: 1, 2, 2, 4) and is flagged ``tied``, and a tie group that straddles
the k-th place is returned whole. Within a group the order is by index, for
display only.

``NeighbourIndex`` normalises the vectors once (float32, ~150 MB at
100,000 x 384); a query is one matrix-vector product, an ``argpartition`` for
the top k, and a float64 rescoring of the few candidates so that the tie test
is not at the mercy of float32 rounding in the BLAS kernel.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from lm_workbench.engine.errors import WorkbenchError

TIE_TOLERANCE = 1e-6  # cosine scores closer than this are the same score
_FLOAT32_MARGIN = 1e-4  # float32 scores within this of the k-th are rescored in float64


@dataclass(frozen=True)
class Neighbour:
    index: int  # row in the vectors the index was built from
    score: float  # cosine similarity to the query
    rank: int  # 1-based competition rank; tied neighbours share it
    tied: bool  # True when another returned neighbour has the same score


def normalise_rows(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length, float32 ([n, H] -> [n, H]); all-zero rows stay zero."""
    v = np.asarray(vectors, dtype=np.float32)
    if v.ndim != 2:
        raise WorkbenchError(f"expected a 2-D array of vectors [n, hidden], got shape {v.shape}")
    norms = np.linalg.norm(v, axis=1, keepdims=True)  # [n, 1]
    return v / np.where(norms > 0, norms, 1.0).astype(np.float32)


def _as_mask(selection: np.ndarray | Sequence[int] | None, n: int, what: str) -> np.ndarray | None:
    """A boolean mask [n] from a mask or a list of indices (None stays None)."""
    if selection is None:
        return None
    sel = np.asarray(selection)
    if sel.dtype == bool:
        if sel.shape != (n,):
            raise WorkbenchError(f"the {what} mask has {sel.shape[0] if sel.ndim else 0} entries; expected {n}")
        return sel
    mask = np.zeros(n, dtype=bool)
    if sel.size:
        idx = sel.astype(np.int64).ravel()
        if idx.min() < 0 or idx.max() >= n:
            raise WorkbenchError(f"the {what} indices must lie in 0..{n - 1}")
        mask[idx] = True
    return mask


def rank_ties(indices: np.ndarray, scores: np.ndarray, k: int) -> list[Neighbour]:
    """Neighbours from candidate (index, score) pairs: best first, ties grouped, groups cut at k.

    Groups are runs of scores (sorted descending) whose consecutive gaps are at
    most ``TIE_TOLERANCE``; the sorted scores do not depend on input order, so
    neither does the grouping. A group is kept when its rank is <= k, so the
    result can hold more than k neighbours when a tie straddles the k-th place.
    """
    order = np.lexsort((indices, -scores))  # by score descending, then index (display only)
    indices, scores = indices[order], scores[order]
    out: list[Neighbour] = []
    start = 0
    n = len(scores)
    while start < n and start < k:
        end = start + 1
        while end < n and scores[end - 1] - scores[end] <= TIE_TOLERANCE:
            end += 1
        tied = end - start > 1
        group = sorted(range(start, end), key=lambda j: int(indices[j]))
        for j in group:
            out.append(Neighbour(int(indices[j]), float(scores[j]), start + 1, tied))
        start = end
    return out


class NeighbourIndex:
    """Cosine nearest neighbours over a fixed set of vectors [n, H]."""

    def __init__(self, vectors: np.ndarray):
        self.unit = normalise_rows(vectors)  # [n, H] float32, rows of length 1 (or 0)
        self.n = self.unit.shape[0]

    def scores(self, i: int) -> np.ndarray:
        """Cosine of row i with every row, float32 [n]."""
        self._check_index(i)
        return self.unit @ self.unit[i]

    def query(self, i: int, k: int, *, exclude: np.ndarray | Sequence[int] | None = None,
              candidates: np.ndarray | Sequence[int] | None = None) -> list[Neighbour]:
        """The k nearest rows to row ``i`` (never ``i`` itself), ties included whole.

        ``exclude``: rows to leave out (mask [n] or indices), e.g. the query's
        own line. ``candidates``: the only rows allowed (mask or indices), e.g.
        occurrences of the same word. More than k neighbours come back when
        the k-th place is tied: every neighbour with the k-th score is listed.
        """
        self._check_index(i)
        allowed = np.ones(self.n, dtype=bool)
        cand = _as_mask(candidates, self.n, "candidates")
        if cand is not None:
            allowed &= cand
        excl = _as_mask(exclude, self.n, "exclude")
        if excl is not None:
            allowed &= ~excl
        allowed[i] = False
        return self._top_k(self.unit[i], k, allowed)

    def _top_k(self, q: np.ndarray, k: int, allowed: np.ndarray) -> list[Neighbour]:
        if k < 1:
            raise WorkbenchError(f"k must be at least 1, got {k}")
        idx = np.flatnonzero(allowed)  # [m] rows that may be returned
        if idx.size == 0:
            return []
        if idx.size < self.n // 4:
            pool, s = idx, self.unit[idx] @ q  # few candidates: score only those
        else:
            s = self.unit @ q
            s[~allowed] = -np.inf
            pool = np.arange(self.n)
        kk = min(k, idx.size)
        if kk < s.size:
            part = np.argpartition(-s, kk - 1)[: kk]
            kth = s[part].min()
        else:
            kth = s.min()
        near = np.flatnonzero(s >= kth - _FLOAT32_MARGIN)  # top k plus near-ties of the k-th
        near = near[np.isfinite(s[near])]
        rows = pool[near]
        exact = self.unit[rows].astype(np.float64) @ q.astype(np.float64)  # [len(rows)] float64
        np.clip(exact, -1.0, 1.0, out=exact)
        return rank_ties(rows, exact, k)

    def _check_index(self, i: int) -> None:
        if not 0 <= int(i) < self.n:
            raise WorkbenchError(f"query index {i} is outside 0..{self.n - 1}")

