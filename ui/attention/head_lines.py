"""The lines of the head view, prepared once per selection (pure numpy, no Qt).

For one layer and a set of heads, ``prepare_lines`` applies the optional
special-token hiding (renormalised, ``lm_workbench.engine.attention.hide_special``) and the
threshold (``lm_workbench.engine.attention.lines_above``) per head, and indexes the lines
by query row and by key row, so hovering a token picks its lines with two
array slices instead of a scan.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

import numpy as np

if TYPE_CHECKING:
    from lm_workbench.attention.for_views import AttentionSide


@dataclass
class HeadLines:
    queries: np.ndarray  # token indices shown on the left, in order (rows)
    keys: np.ndarray  # token indices shown on the right
    q_row: np.ndarray  # [n] row of each line's query
    k_row: np.ndarray  # [n] row of each line's key
    head: np.ndarray  # [n] head number
    weight: np.ndarray  # [n] weight, as shown (renormalised when specials are hidden)
    _by_q: np.ndarray
    _q_start: np.ndarray
    _by_k: np.ndarray
    _k_start: np.ndarray

    def __len__(self) -> int:
        return len(self.weight)

    def all(self) -> np.ndarray:
        return np.arange(len(self.weight))

    def of_query_row(self, row: int) -> np.ndarray:
        """Line indices from the query in ``row`` (weakest first, so strong lines paint on top)."""
        return self._by_q[self._q_start[row]:self._q_start[row + 1]]

    def of_key_row(self, row: int) -> np.ndarray:
        return self._by_k[self._k_start[row]:self._k_start[row + 1]]

    def table(self, index: np.ndarray) -> np.ndarray:
        """[n, 4] rows of (query token, key token, head, weight) for the given lines."""
        return np.column_stack([self.queries[self.q_row[index]], self.keys[self.k_row[index]],
                                self.head[index], self.weight[index]]).astype(float)


def _index(rows: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    order = np.argsort(rows, kind="stable")
    return order, np.searchsorted(rows[order], np.arange(n + 1))


def prepare_lines(side: AttentionSide, layer: int, heads: Sequence[int], *, hide: bool = False,
                  threshold: float = 0.01) -> HeadLines:
    from lm_workbench.attention.for_views import attention_matrix, hide_special, lines_above  # imports torch: not at start-up

    matrix = attention_matrix(side, layer, heads)  # [heads, Q, K]
    if hide:
        matrix, queries, keys = hide_special(matrix, side.query_special, side.key_special)
    else:
        queries, keys = np.arange(matrix.shape[1]), np.arange(matrix.shape[2])
    parts = []
    for h, m in zip(heads, matrix):
        lines = lines_above(m, threshold)
        parts.append(np.column_stack([lines, np.full(len(lines), h)]) if len(lines) else np.zeros((0, 4)))
    table = np.concatenate(parts) if parts else np.zeros((0, 4))
    table = table[np.argsort(table[:, 2], kind="stable")]  # weakest first
    q_row, k_row = table[:, 0].astype(np.intp), table[:, 1].astype(np.intp)
    by_q, q_start = _index(q_row, len(queries))
    by_k, k_start = _index(k_row, len(keys))
    return HeadLines(np.asarray(queries), np.asarray(keys), q_row, k_row, table[:, 3].astype(np.intp),
                     table[:, 2].astype(np.float64), by_q, q_start, by_k, k_start)
