"""``lm-workbench attribute``: the JSON contract, and one-line errors with exit code 2."""

from __future__ import annotations

import json

import pytest
import torch

from lm_workbench.cli.main import main

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


@pytest.mark.parametrize("layer, expected_layer", [(1, 1), (-1, 1), (0, 0)])
def test_attribute_attention_layer_is_the_raw_attention_row_a_plain_forward_gives(capsys, tiny_models, layer,
                                                                                   expected_layer):
    """``--attention-layer L`` adds ``attention: {layer, weights}``: layer L's attention at the predicted position
    (the last token of a decoder's prompt), mean over heads, as transformers' eager attention returns it; the
    other keys are unchanged."""
    import transformers

    folder, text = str(tiny_models["gpt2"]), "The cat sat on the"
    code, out, err = run_cli(capsys, "attribute", folder, "--text", text, "--attention-layer", str(layer), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert set(data) == KEYS | {"attention"} and set(data["attention"]) == {"layer", "weights"}
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    model = transformers.AutoModelForCausalLM.from_pretrained(folder, attn_implementation="eager").eval()
    ids = tokenizer(text, return_tensors="pt")["input_ids"]
    with torch.no_grad():
        attentions = model(input_ids=ids, output_attentions=True).attentions
    assert len(attentions) == 2  # the tiny GPT-2's layers, so -1 is layer 1
    row = attentions[layer][0].double().mean(0)[ids.shape[1] - 1]
    assert data["attention"]["layer"] == expected_layer
    assert data["attention"]["weights"] == pytest.approx(row.tolist(), abs=1e-6)
    assert len(data["attention"]["weights"]) == len(data["tokens"]) and data["position"] == ids.shape[1] - 1
    code, out, err = run_cli(capsys, "attribute", folder, "--text", text, "--json")
    assert code == 0 and {k: v for k, v in data.items() if k != "attention"} == json.loads(out)


def test_attribute_without_attention_layer_prints_the_same_keys(capsys, tiny_models):
    code, out, err = run_cli(capsys, "attribute", str(tiny_models["bert"]), "--text", "the cat [MASK] on the mat",
                             "--json")
    assert code == 0, err
    assert "attention" not in json.loads(out)
    code, out, err = run_cli(capsys, "attribute", str(tiny_models["bert"]), "--text", "the cat [MASK] on the mat",
                             "--attention-layer", "0")
    assert code == 0, err
    assert out.startswith("grad-input: target") and "attention: layer 0 at the predicted position" in out


def test_attribute_attention_layer_out_of_range_is_one_line(capsys, tiny_models):
    code, out, err = run_cli(capsys, "attribute", str(tiny_models["gpt2"]), "--text", "The cat",
                             "--attention-layer", "7", "--json")
    assert code == 2 and out == "" and "the layer is between 0 and 1, not 7" in err
