"""Ablations against hooked forward passes written here: a hook that zeroes (or sets to a corpus mean computed
here) a head's columns of the attention's output-projection input, or an MLP's output, and the metric read off
the model's own logits."""

from __future__ import annotations

import json

import pytest
import torch

from lm_workbench.engine.heads.ablation import ablate, sweep_heads

PROMPT = "The cat sat on the"
CORPUS = ["The list holds values in order.", "A tuple is a sequence of items that cannot change."]


@pytest.fixture
def gpt2(heads_gpt2):
    return heads_gpt2


def _metric(loaded, ids, x, y, hooks):
    """logit(x) - logit(y) at the last position, with ``hooks`` ((module, pre-hook)) in place."""
    handles = [module.register_forward_pre_hook(hook) for module, hook in hooks]
    try:
        with torch.no_grad():
            logits = loaded.model(input_ids=torch.tensor([ids])).logits[0, -1]
    finally:
        for handle in handles:
            handle.remove()
    return float(logits[x] - logits[y])


def _set_columns(columns, value):
    def hook(_module, args):
        x = args[0].clone()
        x[..., columns] = value
        return (x,)

    return hook


def _ids(loaded, *tokens):
    return [loaded.tokenizer.convert_tokens_to_ids(t) for t in tokens]


def test_zero_ablating_heads_together_and_one_by_one_matches_a_hooked_forward(gpt2):
    ids = gpt2.tokenizer(PROMPT)["input_ids"]
    x, y = _ids(gpt2, "Ġthe", "Ġa")
    blocks, width = gpt2.model.transformer.h, 32 // 4
    result = ablate(gpt2, PROMPT, "Ġthe", "Ġa", heads=[("self", 0, 1), ("self", 1, 2)])
    expected = _metric(gpt2, ids, x, y, [(blocks[0].attn.c_proj, _set_columns(slice(8, 16), 0.0)),
                                         (blocks[1].attn.c_proj, _set_columns(slice(16, 24), 0.0))])
    assert result.clean_metric == pytest.approx(_metric(gpt2, ids, x, y, []), abs=1e-5)
    assert result.ablated_metric == pytest.approx(expected, abs=1e-5)
    assert result.ablated_metric != pytest.approx(result.clean_metric, abs=1e-6)  # the hook did move it
    sweep = sweep_heads(gpt2, PROMPT, "Ġthe", "Ġa")
    for layer in range(2):
        for head in range(4):
            cols = slice(head * width, (head + 1) * width)
            alone = _metric(gpt2, ids, x, y, [(blocks[layer].attn.c_proj, _set_columns(cols, 0.0))])
            assert sweep.ablated_metric[layer][head] == pytest.approx(alone, abs=1e-5)


def test_mean_ablation_uses_the_corpus_mean_and_an_mlp_output_is_zeroed(gpt2):
    ids = gpt2.tokenizer(PROMPT)["input_ids"]
    x, y = _ids(gpt2, "Ġthe", "Ġa")
    block = gpt2.model.transformer.h[1]
    seen = []
    handle = block.attn.c_proj.register_forward_pre_hook(lambda m, a: seen.append(a[0][0]))
    with torch.no_grad():
        for line in CORPUS:
            gpt2.model(input_ids=torch.tensor([gpt2.tokenizer(line)["input_ids"]]))
    handle.remove()
    mean = torch.cat(seen).mean(0)
    result = ablate(gpt2, PROMPT, "Ġthe", "Ġa", heads=[("self", 1, 3)], how="mean", corpus=CORPUS)
    expected = _metric(gpt2, ids, x, y, [(block.attn.c_proj, _set_columns(slice(24, 32), mean[24:32]))])
    assert result.ablated_metric == pytest.approx(expected, abs=1e-5)

    def zero_mlp(_module, _args, output):
        return torch.zeros_like(output)

    handle = gpt2.model.transformer.h[0].mlp.register_forward_hook(zero_mlp)
    try:
        expected = _metric(gpt2, ids, x, y, [])
    finally:
        handle.remove()
    assert ablate(gpt2, PROMPT, "Ġthe", "Ġa", mlps=[0]).ablated_metric == pytest.approx(expected, abs=1e-5)


def test_a_head_or_layer_that_is_not_there_is_one_line(gpt2):
    from lm_workbench.engine.errors import WorkbenchError

    for heads, mlps, message in (([("self", 1, 9)], [], "heads 0 to 3"), ([("self", 5, 0)], [], "layers are 0 to 1"),
                                 ([("cross", 0, 0)], [], "no cross-attention"), ([], [7], "layers are 0 to 1")):
        with pytest.raises(WorkbenchError, match=message):
            ablate(gpt2, PROMPT, "Ġthe", heads=heads, mlps=mlps)


def test_resampling_from_a_one_token_corpus_is_that_tokens_value(gpt2):
    one = ["list"]
    assert len(gpt2.tokenizer(one[0])["input_ids"]) == 1
    mean = ablate(gpt2, PROMPT, "Ġthe", heads=[("self", 0, 2)], how="mean", corpus=one)
    resampled = ablate(gpt2, PROMPT, "Ġthe", heads=[("self", 0, 2)], how="resample", corpus=one, seed=3)
    assert resampled.ablated_metric == pytest.approx(mean.ablated_metric, abs=1e-6)


def test_a_masked_lm_head_zeroed_before_its_output_projection(heads_bert):
    bert = heads_bert
    text = "The cat [MASK] on the mat"
    enc = bert.tokenizer(text)
    position = enc["input_ids"].index(bert.tokenizer.mask_token_id)
    dense = bert.model.bert.encoder.layer[1].attention.output.dense
    handle = dense.register_forward_pre_hook(_set_columns(slice(0, 8), 0.0))
    try:
        with torch.no_grad():
            logits = bert.model(**{k: torch.tensor([v]) for k, v in enc.items()}).logits[0, position]
    finally:
        handle.remove()
    target = bert.tokenizer.convert_ids_to_tokens([int(logits.argmax())])[0]
    result = ablate(bert, text, target, heads=[("self", 1, 0)])
    assert result.ablated_metric == pytest.approx(float(logits.max()), abs=1e-5)


def test_cli_ablate_json(tiny_models, tmp_path, capsys):
    from lm_workbench.cli.main import main

    model = str(tiny_models["gpt2"])
    assert main(["ablate", model, "--text", PROMPT, "--target", "Ġthe", "--contrast", "Ġa", "--heads", "0.1,1.2",
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"how", "target", "contrast", "clean_metric", "ablated_metric"} <= set(data)
    assert (data["how"], data["target"], data["contrast"]) == ("zero", "Ġthe", "Ġa")
    assert isinstance(data["ablated_metric"], float)
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(CORPUS) + "\n\n", encoding="utf-8")
    assert main(["ablate", model, "--text", PROMPT, "--target", "Ġthe", "--all-heads", "--how", "resample",
                 "--corpus", str(corpus), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["how"] == "resample" and [len(row) for row in data["ablated_metric"]] == [4, 4]
    assert main(["ablate", model, "--text", PROMPT, "--target", "Ġthe", "--all-heads", "--how", "mean"]) == 2
    assert "--corpus" in capsys.readouterr().err


def test_the_cli_lists_the_engines_ways_to_ablate():
    from lm_workbench.engine.heads.names import HOWS
    from lm_workbench.cli.heads_commands import HOWS as CLI_HOWS
    from lm_workbench.heads.state import HOWS as STATE_HOWS

    assert CLI_HOWS == HOWS == STATE_HOWS
