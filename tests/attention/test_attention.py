"""Attention selection, special-token hiding with renormalisation, and line thresholds."""

from __future__ import annotations

import numpy as np
import pytest

from lm_workbench.engine.analysis import encode
from lm_workbench.engine.attention import (
    AttentionKind, attention_matrix, attention_side, hide_special, lines_above,
)
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.models.loading import load_source as load_model


def test_hide_special_renormalises_rows_by_hand():
    w = np.array([[0.5, 0.2, 0.3],
                  [0.6, 0.1, 0.3],
                  [0.9, 0.05, 0.05]])
    special = [True, False, False]
    got, q, k = hide_special(w, special, special)
    assert q.tolist() == [1, 2] and k.tolist() == [1, 2]
    assert np.allclose(got, [[0.1 / 0.4, 0.3 / 0.4], [0.5, 0.5]])


def test_hide_special_row_with_all_weight_on_specials_is_zero_not_nan():
    w = np.array([[1.0, 0.0], [1.0, 0.0]])
    got, _, _ = hide_special(w, [False, False], [True, False])
    assert np.all(np.isfinite(got)) and got[:, 0].tolist() == [0.0, 0.0]


def test_lines_above_threshold_are_counted_and_sorted():
    w = np.array([[0.005, 0.5, 0.495], [0.01, 0.98, 0.01]])
    lines = lines_above(w, 0.01)
    assert len(lines) == 5  # 0.005 is below the default threshold; 0.01 is kept
    assert lines[0].tolist() == [1, 1, 0.98]
    assert np.all(np.diff(lines[:, 2]) <= 0)


def test_sides_of_an_encoder_decoder(tiny_models):
    loaded = load_model(str(tiny_models["bart"]))
    enc = encode(loaded, "The statement is true.", target="A target text.")
    cross = attention_side(enc, AttentionKind.CROSS)
    assert cross.query_tokens == enc.decoder.tokens and cross.key_tokens == enc.tokens
    assert cross.weights.shape[-2:] == (len(enc.decoder.tokens), len(enc.tokens))
    dec = attention_side(enc, "decoder")
    assert np.triu(dec.weights, 1).max() == 0.0  # causal
    m = attention_matrix(dec, 1, [0, 2])
    assert m.shape[0] == 2 and np.allclose(m.sum(-1), 1, atol=1e-5)


def test_encoder_only_model_has_no_cross_attention(minilm):
    enc = encode(minilm, "Just an encoder.")
    with pytest.raises(WorkbenchError, match="encoder-decoder"):
        attention_side(enc, "cross")
    with pytest.raises(WorkbenchError, match="layers 0..5"):
        attention_matrix(attention_side(enc), 6)
    no_attn = encode(minilm, "Just an encoder.", attentions=False)
    with pytest.raises(WorkbenchError, match="no attention weights"):
        attention_side(no_attn)


def test_a_model_that_returns_no_attentions_gets_a_clear_message(tiny_models):
    """Models whose only attention path is a fused kernel (sdpa, flash) report no weights."""
    import contextlib

    loaded = load_model(str(tiny_models["gpt2"]))
    loaded.attention_implementation = lambda name: contextlib.nullcontext()  # stays on sdpa
    assert loaded.model.config._attn_implementation == "sdpa"
    with pytest.raises(WorkbenchError, match="returned no attention weights.*sdpa"):
        encode(loaded, "The statement is true.")
    assert encode(loaded, "The statement is true.", attentions=False).hidden_states.shape[0] == 3
