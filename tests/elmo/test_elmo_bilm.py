"""The biLM: options.json round trip, presets, and the two-direction next-word loss."""

from __future__ import annotations

import math

import pytest
import torch

from lm_workbench.engine.elmo.bilm import ElmoModel
from lm_workbench.engine.elmo.characters import batch_to_char_ids
from lm_workbench.engine.elmo.config import PRESETS, ElmoConfig, preset
from tests.support.elmo_reference import one_torch_thread  # noqa: F401 (autouse fixture)

# AllenNLP's published options.json for elmo_2x1024_128_2048cnn_1xhighway
SMALL_OPTIONS = {
    "lstm": {"use_skip_connections": True, "projection_dim": 128, "cell_clip": 3, "proj_clip": 3,
             "dim": 1024, "n_layers": 2},
    "char_cnn": {"activation": "relu", "filters": [[1, 32], [2, 32], [3, 64], [4, 128], [5, 256], [6, 512],
                                                   [7, 1024]],
                 "n_highway": 1, "embedding": {"dim": 16}, "n_characters": 262, "max_characters_per_token": 50},
}


def test_options_json_round_trip_and_published_presets():
    config = ElmoConfig.from_options_json(SMALL_OPTIONS)
    assert config == PRESETS["small"]
    assert config.to_options_json() == SMALL_OPTIONS
    assert config.n_filters == 2048 and config.output_dim == 256 and config.num_output_layers == 3
    assert (PRESETS["original"].lstm_dim, PRESETS["original"].projection_dim, PRESETS["original"].n_highway) == (
        4096, 512, 2)
    assert PRESETS["medium"].projection_dim == 256
    # bilm-tf's training options count 261 characters; n_tokens_vocab gives the softmax
    training = {**SMALL_OPTIONS, "char_cnn": {**SMALL_OPTIONS["char_cnn"], "n_characters": 261},
                "n_tokens_vocab": 793471}
    assert ElmoConfig.from_options_json(training).n_characters == 262
    assert ElmoConfig.from_options_json(training).vocab_size == 793471
    with pytest.raises(ValueError, match="activation"):
        ElmoConfig.from_options_json({**SMALL_OPTIONS, "char_cnn": {**SMALL_OPTIONS["char_cnn"], "activation": "gelu"}})
    with pytest.raises(ValueError, match="unknown ELMo size"):
        preset("huge")


def test_bilm_loss_is_forward_next_word_and_backward_previous_word_cross_entropy():
    torch.manual_seed(0)
    model = ElmoModel(preset("course", vocab_size=11))
    sentences = [["a", "b", "c"], ["d"]]
    ids = batch_to_char_ids(sentences)
    # softmax ids of <S>=0, tokens, </S>=1, aligned with the boundary positions; -100 on padding
    words = torch.tensor([[0, 5, 6, 7, 1], [0, 8, 1, -100, -100]])
    got = model.bilm_loss(ids, words)

    out = model(ids, remove_boundaries=False)
    w, b = model.softmax.weight, model.softmax.bias

    def nll(state, target):
        return -torch.log_softmax(state @ w.T + b, dim=-1)[target]

    fwd, bwd = [], []
    for s, tokens in enumerate(sentences):
        n = len(tokens) + 2
        for t in range(n - 1):
            fwd.append(nll(out.forward_top[s, t], words[s, t + 1]))  # position t predicts word t+1
        for t in range(1, n):
            bwd.append(nll(out.backward_top[s, t], words[s, t - 1]))  # position t predicts word t-1
    assert got.n_targets == len(fwd) + len(bwd) == 2 * (4 + 2)
    torch.testing.assert_close(got.forward_loss, torch.stack(fwd).mean())
    torch.testing.assert_close(got.backward_loss, torch.stack(bwd).mean())
    torch.testing.assert_close(got.loss, (got.forward_loss + got.backward_loss) / 2)
    assert abs(got.loss.item() - math.log(11)) < 1.0  # an untrained model is near uniform

    got.loss.backward()
    for name, p in model.named_parameters():
        assert p.grad is not None and p.grad.abs().sum() > 0, name


def test_forward_direction_cannot_see_the_future_and_backward_cannot_see_the_past():
    torch.manual_seed(0)
    model = ElmoModel(preset("course")).eval()
    a = model(batch_to_char_ids([["one", "two", "three", "four"]]))
    b = model(batch_to_char_ids([["one", "two", "zzz", "four"]]))
    p = model.config.projection_dim
    for layer in range(1, 3):
        fa, fb = a.layers[layer][0, :, :p], b.layers[layer][0, :, :p]
        ba, bb = a.layers[layer][0, :, p:], b.layers[layer][0, :, p:]
        torch.testing.assert_close(fa[:2], fb[:2])  # forward states before the changed word
        torch.testing.assert_close(ba[3:], bb[3:])  # backward states after it
        assert (fa[2:] - fb[2:]).abs().max() > 1e-4 and (ba[:3] - bb[:3]).abs().max() > 1e-4
    torch.testing.assert_close(a.layers[0][0, [0, 1, 3]], b.layers[0][0, [0, 1, 3]])  # layer 0: no context


def test_training_without_a_softmax_says_so():
    model = ElmoModel(preset("course"))
    with pytest.raises(ValueError, match="no softmax"):
        model.bilm_loss(batch_to_char_ids([["x"]]), torch.tensor([[0, 2, 1]]))


def test_empty_batch_and_empty_sentence_encode_to_empty_rows():
    model = ElmoModel(preset("course")).eval()
    empty = model.encode_tokens([])
    assert [tuple(layer.shape) for layer in empty.layers] == [(0, 0, 128)] * 3
    out = model.encode_tokens([[], ["word"]])
    alone = model.encode_tokens([["word"]])
    assert out.mask.tolist() == [[False], [True]]
    for got, want in zip(out.layers, alone.layers):
        assert got[0].eq(0).all()
        torch.testing.assert_close(got[1], want[0])
