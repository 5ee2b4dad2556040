"""Attention step by step against the model's own attention weights and its own attention output.

The reference is a separate forward pass with ``output_attentions=True`` under
eager attention (the softmax rows the model computed) and a hook on the
model's attention module that keeps the merged-heads context it produced
(BERT: the output of ``attention.self``; GPT-2: the input of ``attn.c_proj``).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from lm_workbench.engine.attention_walkthrough import STAGES, attention_walkthrough
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.models.loading import load_source as load_model

pytestmark = pytest.mark.timeout(120)
TEXT = "the bank raised interest rates"
PAIR = "the river bank was quiet"


@pytest.fixture(scope="module")
def models(tiny_models):
    torch.set_num_threads(1)
    return {kind: load_model(str(tiny_models[kind]), device="cpu") for kind in ("bert", "gpt2")}


def _reference(loaded, kind: str, text: str, pair: str | None, layer: int):
    """(attentions [heads, T, T], context [T, hidden]) of ``layer`` from the model itself."""
    tok = loaded.tokenizer(text, pair, return_tensors="pt")
    base = loaded.base_model
    module = base.encoder.layer[layer].attention.self if kind == "bert" else base.h[layer].attn.c_proj
    kept = {}
    if kind == "bert":
        handle = module.register_forward_hook(lambda m, i, o: kept.__setitem__("context", o[0].detach()))
    else:
        handle = module.register_forward_pre_hook(lambda m, i: kept.__setitem__("context", i[0].detach()))
    try:
        with loaded.attention_implementation("eager"), torch.inference_mode():
            out = base(**tok, output_attentions=True)
    finally:
        handle.remove()
    return out.attentions[layer][0].numpy(), kept["context"][0].numpy(), tok["input_ids"][0].tolist()


@pytest.mark.parametrize("kind,pair,layer,head", [("bert", None, 1, 2), ("bert", PAIR, 0, 3), ("gpt2", None, 1, 1),
                                                  ("gpt2", None, 0, 0)])
def test_softmax_row_and_output_match_the_models_own(models, kind, pair, layer, head):
    loaded = models[kind]
    attentions, context, ids = _reference(loaded, kind, TEXT, pair, layer)
    n = len(ids)
    d_k = context.shape[-1] // attentions.shape[0]
    for query in (0, n // 2, n - 1):
        steps = attention_walkthrough(loaded, TEXT, pair, layer=layer, head=head, query=query)
        assert len(steps) == n and steps.d_k == d_k
        assert np.abs(steps.weights - attentions[head, query]).max() <= 1e-5
        assert np.abs(steps.output - context[query, head * d_k:(head + 1) * d_k]).max() <= 1e-5
        # the steps hang together: products sum to the scores, scaled by √d_k, weights sum to 1
        assert np.allclose(steps.products.sum(axis=1), steps.keys @ steps.query)
        assert np.allclose(steps.scaled, steps.scores / np.sqrt(d_k))
        assert steps.weights.sum() == pytest.approx(1.0)
        assert np.allclose(steps.weighted.sum(axis=0), steps.weights @ steps.values)
        if kind == "gpt2":  # causal: no weight on later tokens
            assert steps.causal and not steps.weights[query + 1:].any() and steps.visible.sum() == query + 1
        else:
            assert not steps.causal and steps.visible.all()
    assert STAGES[0] == "query" and STAGES[-1] == "output" and all(hasattr(steps, s) for s in STAGES)


def test_bad_layer_head_query_and_unsupported_models_say_so(models, tiny_models):
    bert = models["bert"]
    with pytest.raises(WorkbenchError, match="layer 5 does not exist"):
        attention_walkthrough(bert, TEXT, layer=5, head=0, query=0)
    with pytest.raises(WorkbenchError, match="head 4 does not exist"):
        attention_walkthrough(bert, TEXT, layer=0, head=4, query=0)
    with pytest.raises(WorkbenchError, match="query token 99 does not exist"):
        attention_walkthrough(bert, TEXT, layer=0, head=0, query=99)
    llama = load_model(str(tiny_models["llama"]), device="cpu")
    with pytest.raises(WorkbenchError, match="BERT-family encoders and GPT-2"):
        attention_walkthrough(llama, TEXT, layer=0, head=0, query=0)
