"""``lm-workbench attribute``: the JSON contract, and one-line errors with exit code 2."""

from __future__ import annotations

import json

import pytest
import torch

from workbench.cli.main import main

KEYS = {"method", "tokens", "scores", "target", "target_id", "position", "target_logit"}


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("method", ["grad-input", "integrated-gradients", "rollout", "flow"])
def test_attribute_json_keys(capsys, tiny_models, method):
    code, out, err = run_cli(capsys, "attribute", str(tiny_models["gpt2"]), "--text", "The cat sat on the",
                             "--method", method, "--steps", "16", "--json")
    assert code == 0, err
    data = json.loads(out)
    extra = {"baseline_logit", "completeness_gap"} if method == "integrated-gradients" else set()
    assert set(data) == KEYS | extra
    assert data["method"] == method and len(data["scores"]) == len(data["tokens"]) == 7
    assert data["position"] == 6


def test_attribute_target_names_one_token_of_the_vocabulary(capsys, tiny_models):
    import transformers

    folder = str(tiny_models["bert"])
    code, out, err = run_cli(capsys, "attribute", folder, "--text", "the cat [MASK] on the mat", "--target", "mat",
                             "--json")
    assert code == 0, err
    data = json.loads(out)
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    model = transformers.AutoModelForMaskedLM.from_pretrained(folder).eval()
    ids = tokenizer("the cat [MASK] on the mat")["input_ids"]
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([ids])).logits[0, ids.index(tokenizer.mask_token_id)]
    assert data["target_id"] == tokenizer.convert_tokens_to_ids("mat") and data["target"] == "mat"
    assert data["target_logit"] == pytest.approx(float(logits[data["target_id"]]), abs=1e-5)


@pytest.mark.parametrize("argv, needle", [
    (["--target", "extraordinarily unlikely"], "not one; name a single vocabulary token"),
    (["--method", "integrated-gradients", "--steps", "0"], "--steps must be between"),
])
def test_attribute_errors_exit_2_with_one_line(capsys, tiny_models, argv, needle):
    code, out, err = run_cli(capsys, "attribute", str(tiny_models["gpt2"]), "--text", "The cat", *argv, "--json")
    assert code == 2 and out == ""
    assert needle in err and len(err.strip().splitlines()) == 1
