"""Direct logit attribution against a split written here: hooks keep each head's slice of the attention's
output-projection input and each MLP's hidden layer, the heads' outputs are taken through their slice of the
projection's weight by hand, the final LayerNorm is applied with the scale of the run, and the parts (with
biases made non-zero on purpose) must sum to the model's own logit difference."""

from __future__ import annotations

import json

import pytest
import torch

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.heads.dla import direct_logit_attribution
from lm_workbench.engine.models.loading import load_source as load_model

PROMPT = "The cat sat on the"


@pytest.fixture(scope="module")
def gpt2(tiny_models):
    loaded = load_model(str(tiny_models["gpt2"]))
    generator = torch.Generator().manual_seed(7)
    with torch.no_grad():  # a random model's biases and norm shifts are 0: make them count
        for name, param in loaded.model.named_parameters():
            if name.endswith("bias") or name.endswith("ln_f.weight"):
                param.add_(0.2 * torch.randn(param.shape, generator=generator))
    return loaded


def _foil(loaded, ids):
    with torch.no_grad():
        logits = loaded.model(input_ids=torch.tensor([ids])).logits[0, -1]
    top = torch.topk(logits, 2).indices.tolist()
    return top[0], top[1], float(logits[top[0]] - logits[top[1]])


@torch.no_grad()
def test_the_parts_match_a_hand_split_and_sum_to_the_logit_difference(gpt2):
    model, tok = gpt2.model, gpt2.tokenizer
    ids = tok(PROMPT)["input_ids"]
    x, y, difference = _foil(gpt2, ids)
    result = direct_logit_attribution(gpt2, PROMPT, contrast=tok.convert_ids_to_tokens([y])[0])
    assert (result.target_id, result.contrast_id, result.layers, result.heads) == (x, y, 2, 4)

    kept = {}
    blocks = model.transformer.h
    hooks = [b.attn.c_proj.register_forward_pre_hook(lambda m, a, i=i: kept.__setitem__(("z", i), a[0][0, -1]))
             for i, b in enumerate(blocks)]
    hooks += [b.mlp.c_proj.register_forward_pre_hook(lambda m, a, i=i: kept.__setitem__(("m", i), a[0][0, -1]))
              for i, b in enumerate(blocks)]
    hooks.append(model.transformer.ln_f.register_forward_pre_hook(lambda m, a: kept.__setitem__("r", a[0][0, -1])))
    with torch.no_grad():
        model(input_ids=torch.tensor([ids]))
    for h in hooks:
        h.remove()
    ln = model.transformer.ln_f
    r = kept["r"].double()
    sigma = torch.sqrt(r.var(unbiased=False) + ln.eps)
    gamma, beta = ln.weight.double(), ln.bias.double()
    d = (model.lm_head.weight[x] - model.lm_head.weight[y]).double()

    def through_norm(v):
        return float(((v - v.mean()) * gamma / sigma) @ d)

    width = 32 // 4
    parts, biases = [], torch.zeros(32, dtype=torch.float64)
    for layer, block in enumerate(blocks):
        weight, z = block.attn.c_proj.weight.double(), kept[("z", layer)].double()  # Conv1D: x @ W + b
        for head in range(4):
            cols = slice(head * width, (head + 1) * width)
            share = through_norm(z[cols] @ weight[cols])
            assert result.attn[layer][head] == pytest.approx(share, abs=1e-5)
            parts.append(share)
        mlp = through_norm(kept[("m", layer)].double() @ block.mlp.c_proj.weight.double())
        assert result.mlp[layer] == pytest.approx(mlp, abs=1e-5)
        parts.append(mlp)
        biases += block.attn.c_proj.bias.double() + block.mlp.c_proj.bias.double()
    embed = through_norm((model.transformer.wte.weight[ids[-1]] + model.transformer.wpe.weight[len(ids) - 1]).double())
    bias = through_norm(biases) + float(beta @ d)
    assert result.embed == pytest.approx(embed, abs=1e-5)
    assert result.bias == pytest.approx(bias, abs=1e-5) and abs(bias) > 1e-3  # the biases do count here
    assert embed + sum(parts) + bias == pytest.approx(difference, abs=1e-4)  # the hand split is a sum
    assert result.total == pytest.approx(difference, abs=1e-5)
    assert abs(result.approximation_gap) < 1e-4
    assert result.parts_sum == pytest.approx(result.total - result.approximation_gap, abs=1e-9)


def test_t5_decoder_rows_and_post_norm_refusals(tiny_models, heads_bert):
    t5 = load_model(str(tiny_models["t5"]))
    result = direct_logit_attribution(t5, "The cat sat")
    assert result.rows == ["0 self", "0 cross", "1 self", "1 cross"] and len(result.mlp) == 2
    with torch.no_grad():
        enc = t5.tokenizer("The cat sat", return_tensors="pt")
        start = torch.tensor([[t5.model.config.decoder_start_token_id]])
        logits = t5.model(**enc, decoder_input_ids=start).logits[0, 0]
    assert result.total == pytest.approx(float(logits.max()), abs=1e-5)
    assert abs(result.approximation_gap) < 1e-4
    bert = heads_bert
    with pytest.raises(WorkbenchError, match="not a sum") as raised:
        direct_logit_attribution(bert, "The cat [MASK] on the mat")
    assert "\n" not in str(raised.value)


def test_cli_dla_json(tiny_models, capsys):
    from lm_workbench.cli.main import main

    assert main(["dla", str(tiny_models["gpt2"]), "--text", PROMPT, "--target", " the", "--contrast", " a",
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    for key in ("layers", "heads", "embed", "attn", "mlp", "bias", "total", "approximation_gap"):
        assert key in data
    parts = data["embed"] + sum(map(sum, data["attn"])) + sum(data["mlp"]) + data["bias"]
    assert parts == pytest.approx(data["total"] - data["approximation_gap"], abs=1e-9)
    assert len(data["attn"]) == data["layers"] == 2 and all(len(row) == data["heads"] for row in data["attn"])
