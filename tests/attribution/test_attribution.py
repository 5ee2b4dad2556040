"""Attributions checked against independent computations: plain autograd and finite differences for
gradient × input, completeness for integrated gradients, hand-worked matrices for rollout and flow."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from lm_workbench.engine.attribution.attribute import attribute
from lm_workbench.engine.attribution.rollout import attention_flow, rollout
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.models.loading import load_source as load_model

PROMPT = "The cat sat on the"
MASKED = "The cat [MASK] on the mat"


@pytest.fixture(scope="module")
def gpt2(tiny_models):
    return load_model(str(tiny_models["gpt2"]))


@pytest.fixture(scope="module")
def bert(tiny_models):
    return load_model(str(tiny_models["bert"]))


def _autograd_grad_input(model, ids: list[int], position: int, target_id: int, extra=None) -> np.ndarray:
    """Σ_d e_d ∂logit/∂e_d with a hook on the word-embedding module's output: the model runs from its ids."""
    kept = {}

    def keep(_module, _inputs, output):
        output.retain_grad()
        kept["e"] = output

    handle = model.get_input_embeddings().register_forward_hook(keep)
    try:
        with torch.enable_grad():
            logits = model(input_ids=torch.tensor([ids]), **(extra or {})).logits
            logits[0, position, target_id].backward()
    finally:
        handle.remove()
        model.zero_grad(set_to_none=True)
    e = kept["e"]
    return (e * e.grad).sum(-1)[0].detach().double().numpy()


def test_grad_input_on_a_decoder_equals_plain_autograd(gpt2):
    result = attribute(gpt2, PROMPT, "grad-input")
    ids = gpt2.tokenizer(PROMPT)["input_ids"]
    with torch.no_grad():
        logits = gpt2.model(input_ids=torch.tensor([ids])).logits[0, -1]
    assert result.target_id == int(torch.argmax(logits))  # default target: the top next token
    assert result.position == len(ids) - 1 and len(result.scores) == len(ids)
    assert result.target_logit == pytest.approx(float(logits[result.target_id]), abs=1e-5)
    expected = _autograd_grad_input(gpt2.model, ids, len(ids) - 1, result.target_id)
    np.testing.assert_allclose(result.scores, expected, rtol=1e-4, atol=1e-7)


def test_grad_input_on_a_masked_lm_matches_finite_differences(bert):
    result = attribute(bert, MASKED, "grad-input", target="mat")
    enc = bert.tokenizer(MASKED)
    ids, position = enc["input_ids"], enc["input_ids"].index(bert.tokenizer.mask_token_id)
    assert result.position == position and result.target == "mat"
    extra = {"token_type_ids": torch.tensor([enc["token_type_ids"]])} if "token_type_ids" in enc else {}
    expected = _autograd_grad_input(bert.model, ids, position, result.target_id, extra)
    np.testing.assert_allclose(result.scores, expected, rtol=1e-4, atol=1e-7)
    # finite differences along e itself, for the mask token: d/dh logit((1 + h) e_mask) at h = 0 = e · ∇
    model = bert.model.double()
    try:
        emb = model.get_input_embeddings()(torch.tensor([ids])).detach()

        def logit(h: float) -> float:
            scaled = emb.clone()
            scaled[0, position] *= 1 + h
            with torch.no_grad():
                return float(model(inputs_embeds=scaled, **extra).logits[0, position, result.target_id])

        h = 1e-5
        assert result.scores[position] == pytest.approx((logit(h) - logit(-h)) / (2 * h), rel=1e-3)
    finally:
        model.float()


def test_integrated_gradients_gap_shrinks_with_steps_and_is_small_at_64(gpt2):
    gaps = {}
    for steps in (2, 8, 64):
        result = attribute(gpt2, PROMPT, "integrated-gradients", steps=steps)
        gaps[steps] = abs(result.completeness_gap)
    assert gaps[64] < gaps[8] < gaps[2]
    # completeness checked from outside: f(x) and f(0) computed here, the scores summed here
    ids = gpt2.tokenizer(PROMPT)["input_ids"]
    emb = gpt2.model.get_input_embeddings()(torch.tensor([ids])).detach()
    with torch.no_grad():
        f_x = float(gpt2.model(inputs_embeds=emb).logits[0, -1, result.target_id])
        f_0 = float(gpt2.model(inputs_embeds=torch.zeros_like(emb)).logits[0, -1, result.target_id])
    assert (result.target_logit, result.baseline_logit) == (pytest.approx(f_x, abs=1e-5), pytest.approx(f_0, abs=1e-5))
    assert sum(result.scores) - (f_x - f_0) == pytest.approx(result.completeness_gap, abs=1e-5)
    assert abs(sum(result.scores) - (f_x - f_0)) < 1e-3 * max(1.0, abs(f_x - f_0))


def test_one_integrated_gradients_step_is_the_trapezoid_of_the_two_ends(gpt2):
    """steps=1: the score is e · (∇f(0) + ∇f(e)) / 2, with both gradients taken here by plain autograd."""
    result = attribute(gpt2, PROMPT, "integrated-gradients", steps=1)
    ids = gpt2.tokenizer(PROMPT)["input_ids"]
    emb = gpt2.model.get_input_embeddings()(torch.tensor([ids])).detach()
    grads = []
    for point in (torch.zeros_like(emb), emb):
        x = point.clone().requires_grad_(True)
        gpt2.model(inputs_embeds=x).logits[0, -1, result.target_id].backward()
        grads.append(x.grad)
    gpt2.model.zero_grad(set_to_none=True)
    expected = (emb * (grads[0] + grads[1]) / 2).sum(-1)[0].double().numpy()
    np.testing.assert_allclose(result.scores, expected, rtol=1e-4, atol=1e-7)


# A hand-worked example, 2 layers x 2 tokens; layer 1 given as two heads whose mean is [[1, 0], [.5, .5]].
#   Ã1 = .5 A1 + .5 I = [[1, 0], [.25, .75]]     Ã2 = .5 A2 + .5 I = [[1, 0], [.1, .9]]
#   rollout = Ã2 · Ã1 = [[1, 0], [.1 + .9 * .25, .9 * .75]] = [[1, 0], [.325, .675]]
#   flow from the top of token 1 to input 0: via (1, 0): min(.1, 1) = .1; via (1, 1): min(.9, .25) = .25 -> .35
#                                to input 1: only via (1, 1): min(.9, .75) = .75
LAYER_1_HEADS = [[[1.0, 0.0], [1.0, 0.0]], [[1.0, 0.0], [0.0, 1.0]]]
LAYER_2_HEADS = [[[1.0, 0.0], [0.2, 0.8]], [[1.0, 0.0], [0.2, 0.8]]]
HAND_ATTENTIONS = np.array([LAYER_1_HEADS, LAYER_2_HEADS])  # [layers, heads, T, T]


def test_rollout_matches_the_hand_worked_example():
    np.testing.assert_allclose(rollout(HAND_ATTENTIONS), [[1.0, 0.0], [0.325, 0.675]], atol=1e-12)


def test_flow_matches_the_hand_worked_example():
    np.testing.assert_allclose(attention_flow(HAND_ATTENTIONS, 1), [0.35, 0.75], atol=1e-5)
    np.testing.assert_allclose(attention_flow(HAND_ATTENTIONS, 0), [1.0, 0.0], atol=1e-5)


def test_rollout_and_flow_on_a_model_read_its_attention_at_the_predicted_position(bert):
    from lm_workbench.engine.analysis import encode

    attentions = encode(bert, MASKED, attentions=True).attentions.astype(np.float64)
    mask = bert.tokenizer(MASKED)["input_ids"].index(bert.tokenizer.mask_token_id)
    mixed = [0.5 * layer.mean(0) + 0.5 * np.eye(layer.shape[-1]) for layer in attentions]
    expected = (mixed[1] @ mixed[0])[mask]  # the tiny BERT has 2 layers
    result = attribute(bert, MASKED, "rollout")
    assert result.method == "rollout" and result.position == mask
    np.testing.assert_allclose(result.scores, expected, atol=1e-6)
    flow = attribute(bert, MASKED, "flow")
    assert flow.method == "flow" and len(flow.scores) == len(expected)
    # a flow to one input is at most the capacity out of the source and into that input's node in layer 1
    for j, score in enumerate(flow.scores):
        assert score <= min(mixed[1][mask].sum(), mixed[0][:, j].sum()) + 1e-5


def test_bad_targets_and_texts_are_one_line_errors(gpt2, bert, tiny_models):
    with pytest.raises(WorkbenchError, match="not one; name a single vocabulary token"):
        attribute(gpt2, PROMPT, target="extraordinarily unlikely")
    with pytest.raises(WorkbenchError, match="exactly one mask token"):
        attribute(bert, "no mask here")
    with pytest.raises(WorkbenchError, match="exactly one mask token"):
        attribute(bert, "[MASK] and [MASK]")
    with pytest.raises(WorkbenchError, match="output position is between 0 and"):
        attribute(load_model(str(tiny_models["t5"])), "a text", output_position=-1)
