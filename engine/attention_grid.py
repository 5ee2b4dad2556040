"""The attention model grid's numbers: every layer x head (and the mean over heads) pooled to a thumbnail.

Pure numpy (no torch at import, no Qt), so the view's job computes it on the worker thread and the widget
(``lm_workbench.ui.attention.model_grid``) only draws:

- ``pool_to``: [..., Q, K] -> [..., size, size] by block maxima (a sharp peak survives), then a
  nearest-neighbour stretch;
- ``grid_values``: the whole grid as one mosaic in [0, 1], each thumbnail scaled to its own maximum, with
  special tokens dropped and rows renormalised first when asked (``lm_workbench.engine.attention.hide_special``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from lm_workbench.engine.attention import AttentionSide

THUMB = 48  # pixels of a thumbnail's source image, at most


def pool_to(matrices: np.ndarray, size: int) -> np.ndarray:
    """[..., Q, K] -> [..., size, size]: block maxima (a sharp peak survives), then nearest-neighbour stretch.

    Values must be >= 0 (the padding is 0). One reshape for the whole stack,
    so every layer and head of a 512-token text pools in a few tens of ms.
    """
    q, k = matrices.shape[-2:]
    bq, bk = -(-q // size), -(-k // size)  # block sides (ceil)
    nq, nk = -(-q // bq), -(-k // bk)
    pad = [(0, 0)] * (matrices.ndim - 2) + [(0, nq * bq - q), (0, nk * bk - k)]
    blocks = np.pad(matrices, pad).reshape(*matrices.shape[:-2], nq, bq, nk, bk)
    pooled = blocks.max(axis=(-3, -1))
    rows = np.minimum((np.arange(size) * nq) // size, nq - 1)
    cols = np.minimum((np.arange(size) * nk) // size, nk - 1)
    return pooled[..., rows, :][..., cols]


def grid_values(side: AttentionSide, hide: bool = False, thumb: int = THUMB) -> tuple[np.ndarray, int]:
    """The grid's mosaic as numbers in [0, 1] and the thumbnail size ``t``: [layers * t, (heads + 1) * t].

    Every layer x head, plus the mean over heads (the last column), pooled to at most ``thumb`` pixels a side
    and scaled to its own maximum; with ``hide``, special tokens dropped and rows renormalised first.
    """
    from lm_workbench.engine.attention import hide_special

    weights = side.weights
    if hide:
        weights = hide_special(weights, side.query_special, side.key_special)[0]
    layers, heads, q, k = weights.shape
    if q == 0 or k == 0:  # hiding specials left nothing (e.g. a decoder side of one start token)
        return np.zeros((layers, (heads + 1)), dtype=np.float32), 1
    t = max(1, min(thumb, max(q, k)))
    cells = np.concatenate([weights, weights.mean(axis=1, keepdims=True)], axis=1)  # [L, H + 1, Q, K]
    pooled = pool_to(cells, t)
    top = pooled.max(axis=(-2, -1), keepdims=True)
    pooled = np.divide(pooled, top, out=np.zeros_like(pooled), where=top > 0)  # each to its own maximum
    return pooled.transpose(0, 2, 1, 3).reshape(layers * t, (heads + 1) * t), t
