"""Contrastive attribution ("why X and not Y") checked by linearity: the map of logit(X) − logit(Y) against the
difference of X's and Y's maps, each computed by plain autograd with a hook written here; integrated gradients'
baseline against the model run on zero word embeddings; the refusals and the CLI's JSON keys."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from lm_workbench.engine.attribution.attribute import attribute
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.models.loading import load_source as load_model
from tests.support.grad_reference import hooked_grad_input

PROMPT = "The cat sat on the"
MASKED = "The cat [MASK] on the mat"


@pytest.fixture(scope="module")
def gpt2(tiny_models):
    return load_model(str(tiny_models["gpt2"]))


def _map(model, ids: list[int], position: int, token_id: int, extra=None) -> np.ndarray:
    def run(m):
        return m(input_ids=torch.tensor([ids]), **(extra or {})).logits[0, position, token_id]

    return hooked_grad_input(model, model.get_input_embeddings(), run)


def _two_tokens(loaded, text: str, position: int, extra=None) -> tuple[int, int]:
    ids = loaded.tokenizer(text)["input_ids"]
    with torch.no_grad():
        logits = loaded.model(input_ids=torch.tensor([ids]), **(extra or {})).logits[0, position]
    top = torch.topk(logits, 3).indices.tolist()
    return top[0], top[2]  # the top token and the third: a foil that is not the default target


def test_grad_input_of_the_difference_is_the_difference_of_the_two_maps(gpt2):
    ids = gpt2.tokenizer(PROMPT)["input_ids"]
    x, y = _two_tokens(gpt2, PROMPT, len(ids) - 1)
    foil = gpt2.tokenizer.convert_ids_to_tokens([y])[0]
    result = attribute(gpt2, PROMPT, "grad-input", contrast=foil)
    assert (result.target_id, result.contrast_id, result.contrast) == (x, y, foil)
    expected = _map(gpt2.model, ids, len(ids) - 1, x) - _map(gpt2.model, ids, len(ids) - 1, y)
    np.testing.assert_allclose(result.scores, expected, rtol=1e-4, atol=1e-7)
    with torch.no_grad():
        logits = gpt2.model(input_ids=torch.tensor([ids])).logits[0, -1]
    assert result.target_logit == pytest.approx(float(logits[x]), abs=1e-5)  # X's own logit, not the difference
    assert result.contrast_logit == pytest.approx(float(logits[y]), abs=1e-5)


def test_on_a_masked_lm_too(tiny_models):
    bert = load_model(str(tiny_models["bert"]))
    enc = bert.tokenizer(MASKED)
    ids, position = enc["input_ids"], enc["input_ids"].index(bert.tokenizer.mask_token_id)
    extra = {"token_type_ids": torch.tensor([enc["token_type_ids"]])} if "token_type_ids" in enc else {}
    result = attribute(bert, MASKED, "grad-input", target="mat", contrast="the")
    x, y = bert.tokenizer.convert_tokens_to_ids(["mat", "the"])
    expected = _map(bert.model, ids, position, x, extra) - _map(bert.model, ids, position, y, extra)
    np.testing.assert_allclose(result.scores, expected, rtol=1e-4, atol=1e-7)


def test_integrated_gradients_baseline_and_gap_refer_to_the_difference(gpt2):
    ids = gpt2.tokenizer(PROMPT)["input_ids"]
    x, y = _two_tokens(gpt2, PROMPT, len(ids) - 1)
    result = attribute(gpt2, PROMPT, "integrated-gradients", steps=16,
                       contrast=gpt2.tokenizer.convert_ids_to_tokens([y])[0])
    zeros = torch.zeros(1, len(ids), gpt2.model.config.n_embd)
    with torch.no_grad():
        base = gpt2.model(inputs_embeds=zeros).logits[0, -1]
        clean = gpt2.model(input_ids=torch.tensor([ids])).logits[0, -1]
    assert result.baseline_logit == pytest.approx(float(base[x] - base[y]), abs=1e-5)
    difference = float(clean[x] - clean[y])
    assert result.completeness_gap == pytest.approx(sum(result.scores) - (difference - result.baseline_logit),
                                                    abs=1e-6)
    assert abs(result.completeness_gap) < 0.05 * max(1.0, abs(difference))


def test_rollout_and_flow_refuse_a_contrast_and_the_foil_is_not_the_target(gpt2):
    for method in ("rollout", "flow"):
        with pytest.raises(WorkbenchError, match="does not depend on the target"):
            attribute(gpt2, PROMPT, method, contrast="Ġa")
    top = attribute(gpt2, PROMPT, "grad-input").target
    with pytest.raises(WorkbenchError, match="is the target itself"):
        attribute(gpt2, PROMPT, "grad-input", target=top, contrast=top)


def test_cli_adds_the_contrast_keys(gpt2, tiny_models, capsys):
    from lm_workbench.cli.main import main

    ids = gpt2.tokenizer(PROMPT)["input_ids"]
    _x, y = _two_tokens(gpt2, PROMPT, len(ids) - 1)
    foil = gpt2.tokenizer.convert_ids_to_tokens([y])[0]
    assert main(["attribute", str(tiny_models["gpt2"]), "--text", PROMPT, "--contrast", foil, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["contrast"], data["contrast_id"]) == (foil, y)
    with torch.no_grad():
        logits = gpt2.model(input_ids=torch.tensor([ids])).logits[0, -1]
    assert data["contrast_logit"] == pytest.approx(float(logits[y]), abs=1e-5)
    assert data["target_logit"] == pytest.approx(float(logits[data["target_id"]]), abs=1e-5)
    assert main(["attribute", str(tiny_models["gpt2"]), "--text", PROMPT, "--contrast", foil,
                 "--method", "rollout"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "rollout does not depend on the target" in err


def test_model_b_gets_the_same_foil_as_b_spells_it(gpt2, tiny_models):
    from lm_workbench.engine.attribution.counterpart import counterpart_job, same_token
    from lm_workbench.engine.progress import run_to_completion

    llama = load_model(str(tiny_models["llama"]))
    side = run_to_completion(counterpart_job(llama, PROMPT, "next-token", "the", foil="a"))
    result = side.explanation.attribution
    x, y = same_token(llama, "the"), same_token(llama, "a")
    assert (result.target_id, result.contrast_id) == (x, y) and side.note == ""
    ids = llama.tokenizer(PROMPT)["input_ids"]
    expected = _map(llama.model, ids, len(ids) - 1, x) - _map(llama.model, ids, len(ids) - 1, y)
    np.testing.assert_allclose(result.scores, expected, rtol=1e-4, atol=1e-7)
    split = run_to_completion(counterpart_job(llama, PROMPT, "next-token", "the", foil="Colosseum"))
    assert split.explanation.attribution.contrast_id is None and "B's side has no foil" in split.note
