"""The model grid's pooling maths (lm_workbench.engine.attention_grid) against a plain numpy loop."""

from __future__ import annotations

import numpy as np
import pytest

from lm_workbench.engine.attention import AttentionSide, hide_special
from lm_workbench.engine.attention_grid import grid_values, pool_to


def pool_by_loop(matrix: np.ndarray, size: int) -> np.ndarray:
    """One [Q, K] matrix: the maximum of each ceil(Q/size) x ceil(K/size) block, stretched to size x size."""
    q, k = matrix.shape
    bq, bk = -(-q // size), -(-k // size)
    nq, nk = -(-q // bq), -(-k // bk)
    blocks = np.zeros((nq, nk), dtype=matrix.dtype)
    for i in range(nq):
        for j in range(nk):
            blocks[i, j] = matrix[i * bq:(i + 1) * bq, j * bk:(j + 1) * bk].max()
    out = np.zeros((size, size), dtype=matrix.dtype)
    for r in range(size):
        for c in range(size):
            out[r, c] = blocks[min(r * nq // size, nq - 1), min(c * nk // size, nk - 1)]
    return out


@pytest.mark.parametrize("q, k, size", [(5, 5, 5), (7, 3, 4), (100, 100, 48), (49, 97, 48), (3, 130, 48), (1, 1, 1)])
def test_pool_to_is_block_maxima_then_stretch(q, k, size):
    rng = np.random.default_rng(q * 1000 + k)
    stack = rng.random((2, 3, q, k)).astype(np.float32)
    pooled = pool_to(stack, size)
    assert pooled.shape == (2, 3, size, size)
    for a in range(2):
        for b in range(3):
            assert np.array_equal(pooled[a, b], pool_by_loop(stack[a, b], size))


def side(layers: int, heads: int, n: int, special: list[bool]) -> AttentionSide:
    rng = np.random.default_rng(n)
    weights = rng.random((layers, heads, n, n)).astype(np.float32)
    weights /= weights.sum(axis=-1, keepdims=True)
    tokens = [f"t{i}" for i in range(n)]
    return AttentionSide(weights, tokens, tokens, special, special, [0] * n, [0] * n)


@pytest.mark.parametrize("hide", [False, True])
@pytest.mark.parametrize("n, thumb", [(6, 48), (60, 48), (9, 4)])
def test_grid_values_is_every_head_and_the_mean_each_to_its_own_maximum(n, thumb, hide):
    layers, heads = 2, 3
    special = [i in (0, n - 1) for i in range(n)]
    s = side(layers, heads, n, special)
    mosaic, t = grid_values(s, hide=hide, thumb=thumb)
    weights = hide_special(s.weights, special, special)[0] if hide else s.weights
    t_expected = max(1, min(thumb, max(weights.shape[-2:])))
    assert t == t_expected and mosaic.shape == (layers * t, (heads + 1) * t)
    for layer in range(layers):
        for head in range(heads + 1):
            matrix = weights[layer].mean(axis=0) if head == heads else weights[layer, head]
            expected = pool_by_loop(matrix, t)
            expected = expected / expected.max()
            cell = mosaic[layer * t:(layer + 1) * t, head * t:(head + 1) * t]
            assert np.allclose(cell, expected, atol=1e-6)
    assert mosaic.min() >= 0 and np.isclose(mosaic.max(), 1.0)


def test_grid_values_with_nothing_left_after_hiding_specials():
    s = side(2, 3, 2, [True, True])
    mosaic, t = grid_values(s, hide=True)
    assert t == 1 and mosaic.shape == (2, 4) and not mosaic.any()
