"""The character CNN: shapes for several option sets, and the whole computation against numpy."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from lm_workbench.engine.elmo.char_cnn import CharCNN
from lm_workbench.engine.elmo.characters import batch_to_char_ids
from lm_workbench.engine.elmo.config import ElmoConfig
from tests.support.elmo_reference import one_torch_thread  # noqa: F401 (autouse fixture)


def _config(**kw) -> ElmoConfig:
    base = dict(char_embedding_dim=4, filters=((1, 3), (2, 4), (3, 5)), n_highway=2,
                lstm_dim=16, projection_dim=6, max_characters_per_token=12)
    return ElmoConfig(**{**base, **kw})


@pytest.mark.parametrize(
    "overrides, width",
    [({}, 6), ({"n_highway": 0}, 6), ({"projection_dim": 12}, 12), ({"activation": "tanh"}, 6)],
)
def test_output_shape_is_batch_tokens_projection(overrides, width):
    cnn = CharCNN(_config(**overrides))
    ids = batch_to_char_ids([["a", "bb", "ccc"], ["d"]], max_chars=12)
    assert cnn(ids).shape == (2, 3, width)
    assert len(cnn.highways) == overrides.get("n_highway", 2)
    assert isinstance(cnn.projection, torch.nn.Identity) == (width == 12)  # 3+4+5 filters == 12: no projection


def _numpy_char_cnn(cnn: CharCNN, ids: np.ndarray, activation) -> np.ndarray:
    """Embedding lookup, valid 1-D cross-correlation, max over positions, activation, highway, projection."""
    table = cnn.char_embedding.weight.detach().double().numpy()
    emb = table[ids]  # [N, C, E]
    feats = []
    for conv in cnn.convolutions:
        w = conv.weight.detach().double().numpy()  # [count, E, width]
        b = conv.bias.detach().double().numpy()
        width = w.shape[2]
        n_pos = ids.shape[1] - width + 1
        out = np.zeros((ids.shape[0], n_pos, w.shape[0]))
        for p in range(n_pos):
            for k in range(width):
                out[:, p] += emb[:, p + k] @ w[:, :, k].T
        feats.append(activation((out + b).max(axis=1)))
    x = np.concatenate(feats, axis=1)
    for hw in cnn.highways:
        wc, bc = hw.carry.weight.detach().double().numpy(), hw.carry.bias.detach().double().numpy()
        wt, bt = hw.transform.weight.detach().double().numpy(), hw.transform.bias.detach().double().numpy()
        g = 1 / (1 + np.exp(-(x @ wc.T + bc)))
        x = g * np.maximum(x @ wt.T + bt, 0) + (1 - g) * x  # gate weighs the transformed value
    proj = cnn.projection
    return x @ proj.weight.detach().double().numpy().T + proj.bias.detach().double().numpy()


@pytest.mark.parametrize(
    "activation, sentences",
    [
        ("relu", [["héllo", "x"], ["toolongtoken!!"]]),  # a token fills all 12 characters
        ("tanh", [["héllo", "x"], ["toolongtoken!!"]]),
        # short tokens: the character axis is cut to 8 + 3 of 12, and "x" repeats (encoded once)
        ("relu", [["x", "héllo", "x"], ["ab"]]),
    ],
)
def test_char_cnn_and_highway_equal_numpy(activation, sentences):
    torch.manual_seed(0)
    cnn = CharCNN(_config(activation=activation))
    with torch.no_grad():  # gates far from 0 or 1, so carry and transform both matter
        # a large padding-character embedding: for many filters the max is over padding windows,
        # which the cut of the character axis must keep
        cnn.char_embedding.weight[261] = 3.0
        for hw in cnn.highways:
            hw.carry.bias.normal_(0, 1)
            hw.transform.bias.normal_(0, 1)
    ids = batch_to_char_ids(sentences, max_chars=12)
    got = cnn(ids).detach().double().numpy().reshape(-1, 6)
    act = np.tanh if activation == "tanh" else (lambda v: np.maximum(v, 0))
    want = _numpy_char_cnn(cnn, ids.reshape(-1, 12).numpy(), act)
    np.testing.assert_allclose(got, want, atol=1e-5)
    # the other highway convention, g * x + (1 - g) * f(x), gives a different result
    x = np.random.default_rng(0).normal(size=(3, 12))
    hw = cnn.highways[0]
    out = hw(torch.tensor(x, dtype=torch.float32)).detach().double().numpy()
    g = torch.sigmoid(hw.carry(torch.tensor(x, dtype=torch.float32))).detach().double().numpy()
    f = torch.relu(hw.transform(torch.tensor(x, dtype=torch.float32))).detach().double().numpy()
    np.testing.assert_allclose(out, g * f + (1 - g) * x, atol=1e-5)
    assert np.abs(out - (g * x + (1 - g) * f)).max() > 1e-2


def test_padding_character_embedding_is_zero_and_frozen():
    cnn = CharCNN(_config())
    assert cnn.char_embedding.weight[0].eq(0).all()
    cnn(batch_to_char_ids([["ab"]], max_chars=12)).sum().backward()
    assert cnn.char_embedding.weight.grad[0].eq(0).all()
    assert cnn.char_embedding.weight.grad[ord("a") + 1].abs().sum() > 0
