"""``run_with_cache`` / ``run_with_hooks`` / ``hook_names`` (issue 44.3) against hooks written by hand on the plain
transformers model, for every family of the tiny models: the cache's residual stream equals the model's own
hidden states, its patterns the model's attentions, and a replacement through the API moves the logits exactly as
the same replacement hooked by hand; a bad name lists the nearest, a raising hook leaves the model unhooked."""

from __future__ import annotations

import pytest
import torch

import lm_workbench as lw

BLOCKS = {  # where each family's blocks are, written here by hand (not read from the anatomy)
    "bert": lambda m: m.bert.encoder.layer, "gpt2": lambda m: m.transformer.h, "llama": lambda m: m.model.layers,
    "bart": lambda m: m.model.decoder.layers, "t5": lambda m: m.decoder.block,
}


@pytest.fixture(scope="module")
def models(tiny_models):
    return {family: lw.load(str(tiny_models[family]), device="cpu", precision="float32", offline=True)
            for family in BLOCKS}


def _plain_forward(m, text, **extra):
    batch = m.tokenizer(text, return_tensors="pt")
    inputs = {k: v for k, v in batch.items() if k in ("input_ids", "attention_mask", "token_type_ids")}
    if m.loaded.info.family == "encoder-decoder":
        inputs["decoder_input_ids"] = torch.tensor([[m.model.config.decoder_start_token_id]])
    with torch.no_grad():
        return m.model(**inputs, **extra)


@pytest.mark.parametrize("family", sorted(BLOCKS))
def test_cache_equals_the_models_hidden_states_and_attentions(models, family):
    m = models[family]
    two = m.loaded.info.family == "encoder-decoder"
    stack = "decoder." if two else ""
    names = [f"{stack}blocks.0.hook_resid_post", f"{stack}blocks.0.attn.hook_pattern"]
    assert set(names) <= set(m.hook_names())
    logits, cache = m.run_with_cache("the name of the cat is", names=names)
    assert set(cache) == set(names)  # only the named sites are kept
    with m.loaded.attention_implementation("eager"):
        out = _plain_forward(m, "the name of the cat is", output_hidden_states=True, output_attentions=True)
    hidden = out.decoder_hidden_states if two else out.hidden_states
    attentions = out.decoder_attentions if two else out.attentions
    torch.testing.assert_close(cache[names[0]], hidden[1], rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(cache[names[1]], attentions[0], rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(logits, out.logits, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("family", sorted(BLOCKS))
def test_a_replacement_moves_the_logits_as_the_same_hook_by_hand(models, family):
    m = models[family]
    stack = "decoder." if m.loaded.info.family == "encoder-decoder" else ""
    seen = []

    def halve(value, name):
        seen.append(name)
        return value * 0.5

    got = m.run_with_hooks("the name of the cat is", hooks=[(f"{stack}blocks.0.hook_resid_post", halve)])
    block = BLOCKS[family](m.model)[0]

    def by_hand(_module, _args, output):
        return (output[0] * 0.5, *output[1:]) if isinstance(output, tuple) else output * 0.5

    handle = block.register_forward_hook(by_hand)
    try:
        expected = _plain_forward(m, "the name of the cat is").logits
    finally:
        handle.remove()
    assert seen == [f"{stack}blocks.0.hook_resid_post"]
    torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-5)
    assert not torch.allclose(got, _plain_forward(m, "the name of the cat is").logits)


def _hook_count(model):
    return sum(len(mod._forward_hooks) + len(mod._forward_pre_hooks) for mod in model.modules())


def test_bad_names_and_raising_hooks(models):
    m = models["gpt2"]
    with pytest.raises(lw.WorkbenchError, match="nearest: blocks.0.hook_resid_post"):
        m.run_with_cache("x", names=["blocks.0.hook_resid_pst"])
    before = _hook_count(m.model)

    def broken(value, name):
        raise ValueError("boom")

    with pytest.raises(lw.WorkbenchError, match=r"hook on blocks.1.hook_mlp_out raised ValueError: boom"):
        m.run_with_hooks("the cat", hooks=[("blocks.0.hook_attn_out", lambda v, n: None),
                                           ("blocks.1.hook_mlp_out", broken)])
    assert _hook_count(m.model) == before
