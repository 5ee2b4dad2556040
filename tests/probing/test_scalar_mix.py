"""The scalar mix: its formula against numpy, and what training it learns on layers built to differ."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from lm_workbench.engine.progress import Partial
from lm_workbench.engine.scalar_mix.module import ScalarMix
from lm_workbench.engine.scalar_mix.training import ScalarMixConfig, standardise_layers, train_scalar_mix

pytestmark = pytest.mark.timeout(120)


def test_mix_is_gamma_times_the_softmax_weighted_sum_of_layers():
    torch.manual_seed(0)
    mix = ScalarMix(4)
    with torch.no_grad():
        mix.scalars.copy_(torch.tensor([0.5, -1.0, 2.0, 0.0]))
        mix.gamma.fill_(1.7)
    h = torch.randn(3, 5, 4, 8)  # [B, T, L, H]
    s = np.array([0.5, -1.0, 2.0, 0.0])
    w = np.exp(s) / np.exp(s).sum()
    expected = 1.7 * np.einsum("l,btlh->bth", w, h.numpy())
    assert np.allclose(mix(h).detach().numpy(), expected, atol=1e-5)
    assert mix.expected_layer() == pytest.approx(float((np.arange(4) * w).sum()), abs=1e-6)


def test_standardising_gives_every_layer_unit_spread_on_the_training_rows():
    rng = np.random.default_rng(0)
    features = rng.normal(size=(200, 3, 6)) * np.array([1.0, 10.0, 0.1])[None, :, None] + 5.0
    out = standardise_layers(features, np.arange(150))
    train = out[:150].astype(np.float64)
    assert np.allclose(train.mean(axis=0), 0.0, atol=1e-5)
    assert np.allclose(np.sqrt((train ** 2).sum(axis=2).mean(axis=0)), 1.0, atol=1e-5)


def _layers_where_one_encodes_the_label(n=1200, layers=5, hidden=16, informative=3, seed=0):
    """Layer ``informative`` holds a label direction plus noise; every other layer is noise of the same spread."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 3, size=n)
    directions = rng.normal(size=(3, hidden))
    features = rng.normal(size=(n, layers, hidden)).astype(np.float32)
    features[:, informative] = 0.7 * features[:, informative] + 1.5 * directions[labels]
    return features, labels


def test_training_puts_the_weight_on_the_layer_that_encodes_the_task():
    features, labels = _layers_where_one_encodes_the_label(informative=1)
    partials = []
    gen = train_scalar_mix(features, labels, np.arange(900), np.arange(900, 1200),
                           ScalarMixConfig(steps=100, eval_every=50, seed=1))
    while True:
        try:
            item = next(gen)
        except StopIteration as stop:
            result = stop.value
            break
        if isinstance(item, Partial):
            partials.append(item.value)
    assert result.accuracy >= 0.9  # chance is 1/3
    others = [w for j, w in enumerate(result.weights) if j != 1]
    assert result.weights[1] > 3 * max(others)  # from equal weights (0.2 each) to most of it on layer 1
    assert result.expected_layer == pytest.approx(sum(j * w for j, w in enumerate(result.weights)), abs=1e-6)
    assert result.expected_layer < 2.0 - 0.2  # equal weights put it at 2.0: it moved towards layer 1
    assert sum(result.weights) == pytest.approx(1.0, abs=1e-6)
    assert len(partials) == len(result.curve) >= 3 and partials[0] == pytest.approx([0.2] * 5)  # equal at step 0
