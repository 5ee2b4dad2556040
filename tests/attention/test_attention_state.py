"""The Attention tab's state without Qt: the side read for a kind, the grid's values per kind, a preset's
selection clamped to the model, and token similarity, checked against a tiny BERT run with plain transformers."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from transformers import AutoModel

from lm_workbench.attention.view_tasks import encode_attention
from lm_workbench.attention.state import AttentionState
from lm_workbench.engine.attention_grid import grid_values
from lm_workbench.models.loader import load_model
from lm_workbench.engine.progress import CancelToken


@pytest.fixture(scope="module")
def bert(tiny_models):
    return load_model(str(tiny_models["bert"]))


def test_the_side_is_the_models_attention_and_the_grid_keeps_each_kind(bert, tiny_models):
    text = "the bank is closed"
    state = AttentionState()
    encoding, mosaics = encode_attention(bert, text, None, None, 512, grid_values, CancelToken())
    state.set_encoding(encoding, mosaics)
    side = state.choose_kind("encoder")
    ids = bert.tokenizer(text, return_tensors="pt")
    reference = AutoModel.from_pretrained(str(tiny_models["bert"]), attn_implementation="eager").eval()
    with torch.no_grad():  # the reference: plain transformers' attention weights
        want = torch.stack(reference(**ids, output_attentions=True).attentions)[:, 0].numpy()
    layers, heads = state.shape()
    assert (layers, heads) == want.shape[:2] and side is state.side
    np.testing.assert_allclose(side.weights, want, atol=1e-5)
    assert state.grid_values("encoder", False) is mosaics[("encoder", False)]
    assert state.every_head(list(range(heads))) and not state.every_head([0])


@pytest.mark.parametrize("preset, want", [
    ({"layer": 9, "heads": "all"}, (1, [0, 1, 2, 3])), ({"heads": [1, 7, -1]}, (0, [1])),
    ({"heads": [9]}, (0, [0, 1, 2, 3])), ({"layer": 1}, (1, None))])
def test_a_presets_selection_is_clamped_to_the_model(preset, want):
    assert AttentionState.preset_selection(preset, layers=2, heads=4, layer=0) == want


def test_similarity_is_the_cosine_of_token_vectors_and_clears_with_attention(bert):
    text = "the bank is closed"
    state = AttentionState()
    encoding, _ = encode_attention(bert, text, None, None, 512, grid_values, CancelToken())
    state.set_states(encoding)
    assert state.set_no_attention(True) and not state.set_no_attention(True)
    sim = state.similarity_at(1)
    with torch.no_grad():
        h = bert.model(**bert.tokenizer(text, return_tensors="pt"), output_hidden_states=True).hidden_states[1][0]
    h = torch.nn.functional.normalize(h, dim=-1)
    np.testing.assert_allclose(sim, (h @ h.T).numpy(), atol=1e-5)
    state.preset = {"layer": 1}
    assert state.take_preset() == {"layer": 1} and state.take_preset() is None
    assert state.set_no_attention(False) and state.similarity is None
    state.clear()
    assert state.encoding is None and state.side is None
