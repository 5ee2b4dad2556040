"""The logit lens keeps what it shows, not every logit: layer by layer, a few positions at a time.

Checked on a tiny GPT-2 against an independent computation (the model's own final norm and LM head applied
by hand to every hidden state, then a full softmax): the top-k ids and probabilities are the same, and no
logits tensor larger than ``chunk x vocabulary`` is ever made (instead of layers x tokens x vocabulary).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import lm_workbench.engine.lens.logit as lens_module
from lm_workbench.engine.analysis import encode
from lm_workbench.engine.models.loading import load_source as load_model

TEXT = "The statement is true, and the cat sat on the mat while it rained outside."


@pytest.fixture(scope="module")
def gpt2(tiny_models):
    return load_model(str(tiny_models["gpt2"]))


def test_chunked_top_k_equals_a_full_softmax_by_hand(gpt2, monkeypatch):
    hidden = torch.from_numpy(encode(gpt2, TEXT, attentions=False).hidden_states)
    layers, tokens, vocab = hidden.shape[0], hidden.shape[1], gpt2.info.vocab_size
    assert tokens > 6
    largest = []
    readout = lens_module.lens_readout

    def counting_readout(loaded, n):
        inner = readout(loaded, n)

        def wrapped(i, h):
            out = inner(i, h)
            largest.append(out.numel())
            return out

        return wrapped

    monkeypatch.setattr(lens_module, "lens_readout", counting_readout)
    with torch.inference_mode():
        values, ids = lens_module.top_k_per_position(gpt2, hidden, k=5, chunk=3)
    assert max(largest) <= 3 * vocab  # never all positions, never all layers at once
    assert len(largest) == layers * -(-tokens // 3)

    model = gpt2.model
    with torch.inference_mode():
        for layer in range(layers):
            h = hidden[layer]
            if layer < layers - 1:  # hidden_states[-1] is already after ln_f
                h = model.transformer.ln_f(h)
            probs = torch.softmax((h @ model.lm_head.weight.T).double(), dim=-1).numpy()
            order = np.argsort(-probs, axis=-1, kind="stable")[:, :5]
            np.testing.assert_array_equal(ids[layer], order)
            np.testing.assert_allclose(values[layer], np.take_along_axis(probs, order, axis=-1), rtol=1e-5)


def test_the_lens_table_reads_the_same_through_chunks(gpt2, monkeypatch):
    whole = lens_module.logit_lens(gpt2, TEXT, k=3)
    monkeypatch.setattr(lens_module, "POSITIONS_PER_CHUNK", 2)
    chunked = lens_module.logit_lens(gpt2, TEXT, k=3)
    assert chunked.tokens == whole.tokens and chunked.layer_names == whole.layer_names
    for rows, rows1 in zip(whole.top, chunked.top, strict=True):
        for cands, cands1 in zip(rows, rows1, strict=True):  # other matmul shapes: the last bits may differ
            np.testing.assert_allclose([c.prob for c in cands1], [c.prob for c in cands], rtol=1e-5)
            if cands[0].prob - cands[1].prob > 1e-6:
                assert cands1[0].id == cands[0].id


def test_a_view_cap_reads_the_first_positions_of_the_whole_text(gpt2):
    whole = lens_module.logit_lens(gpt2, TEXT, k=2)
    capped = lens_module.logit_lens(gpt2, TEXT, k=2, positions=4)
    assert capped.tokens == whole.tokens[:4] and capped.total_positions == len(whole.tokens) > 4
    assert capped.to_dict()["total_positions"] == len(whole.tokens)
    for rows, rows1 in zip(whole.top, capped.top, strict=True):  # the same cells: the model read the whole text
        assert [c.id for c in rows1[3]] == [c.id for c in rows[3]]

