"""Activation patching checked against what must hold and against patches made here with plain torch hooks."""

from __future__ import annotations

import json

import pytest
import torch

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.models.loading import load_source as load_model
from lm_workbench.engine.patching.tracing import patch
from tests.support.patching_rounding import effect_tolerance
from lm_workbench.cli.main import main

CLEAN, CORRUPT = "The name of the", "The value of the"  # 4 tokens each for the tiny GPT-2 and Llama
MLM_CLEAN, MLM_CORRUPT = "a class is the [MASK]", "a is is the [MASK]"  # 7 tokens, [CLS] and [SEP] too
KEYS = {"site", "layers", "tokens", "clean_metric", "corrupt_metric", "effect"}


@pytest.fixture(scope="module")
def gpt2(tiny_models):
    return load_model(str(tiny_models["gpt2"]))


def _metric(model, ids, position, answer, wrong, module=None, patch_at=None, value=None):
    """logit(answer) - logit(wrong) at ``position``, from a plain forward pass on ids; with ``module``, its
    output (or its first element) at position ``patch_at`` replaced by ``value``."""
    def hook(_m, _inputs, output):
        first = (output[0] if isinstance(output, tuple) else output).clone()
        first[0, patch_at] = value
        return (first, *output[1:]) if isinstance(output, tuple) else first

    handle = module.register_forward_hook(hook) if module is not None else None
    try:
        with torch.no_grad():
            logits = model(input_ids=torch.tensor([ids])).logits[0, position].double()
    finally:
        if handle is not None:
            handle.remove()
    return float(logits[answer] - logits[wrong])


def _clean_output(model, module, ids):
    kept = {}

    def hook(_m, _inputs, output):
        kept["out"] = (output[0] if isinstance(output, tuple) else output)[0].detach().clone()

    handle = module.register_forward_hook(hook)
    with torch.no_grad():
        model(input_ids=torch.tensor([ids]))
    handle.remove()
    return kept["out"]


@pytest.mark.parametrize("kind", ["gpt2", "llama"])
def test_restoring_the_last_block_at_the_last_position_recovers_everything(tiny_models, gpt2, kind):
    loaded = gpt2 if kind == "gpt2" else load_model(str(tiny_models[kind]))
    result = patch(loaded, CLEAN, CORRUPT, "Ġlist", "Ġclass", "resid")
    assert len(result.effect) == len(result.layers) == 2 and all(len(row) == 4 for row in result.effect)
    # the restored row goes through the final norm and the head as the clean reference row did (to rounding:
    # a batch of another size may sum in another order)
    tolerance = effect_tolerance(result.clean_metric, result.corrupt_metric)
    assert result.effect[-1][-1] == pytest.approx(1.0, abs=tolerance)
    # the last block's output at an earlier position never reaches the last position's logits, and each patched
    # row is measured against the same row of an unpatched batch of its shape: exactly nothing, on any CPU
    assert result.effect[-1][:-1] == [0.0] * 3
    # both runs' metrics, computed here from the ids
    tok = loaded.tokenizer
    vocab = tok.get_vocab()
    for text, metric in ((CLEAN, result.clean_metric), (CORRUPT, result.corrupt_metric)):
        ids = tok(text)["input_ids"]
        assert metric == pytest.approx(_metric(loaded.model, ids, len(ids) - 1, vocab["Ġlist"], vocab["Ġclass"]),
                                       abs=1e-5)


@pytest.mark.parametrize("site, layer, position", [("mlp", 0, 1), ("attn", 1, 2), ("resid", 0, 1)])
def test_one_cell_equals_a_patch_made_here_with_a_plain_hook(gpt2, site, layer, position):
    result = patch(gpt2, CLEAN, CORRUPT, "Ġlist", "Ġclass", site)
    model, tok = gpt2.model, gpt2.tokenizer
    block = model.transformer.h[layer]
    module = {"mlp": block.mlp, "attn": block.attn, "resid": block}[site]
    clean_ids, corrupt_ids = tok(CLEAN)["input_ids"], tok(CORRUPT)["input_ids"]
    answer, wrong = tok.get_vocab()["Ġlist"], tok.get_vocab()["Ġclass"]
    clean = _metric(model, clean_ids, 3, answer, wrong)
    corrupt = _metric(model, corrupt_ids, 3, answer, wrong)
    value = _clean_output(model, module, clean_ids)[position]
    patched = _metric(model, corrupt_ids, 3, answer, wrong, module, position, value)
    assert result.effect[layer][position] == pytest.approx((patched - corrupt) / (clean - corrupt),
                                                           abs=effect_tolerance(clean, corrupt))


def test_a_masked_lm_is_patched_at_its_mask(tiny_models):
    bert = load_model(str(tiny_models["bert"]))
    result = patch(bert, MLM_CLEAN, MLM_CORRUPT, "list", "class", "attn")
    mask = 5
    assert result.position == mask and result.tokens[mask] == "[MASK]"
    model, tok = bert.model, bert.tokenizer
    module = model.bert.encoder.layer[1].attention.output.dense  # the attention's projection, before its residual
    clean_ids, corrupt_ids = tok(MLM_CLEAN)["input_ids"], tok(MLM_CORRUPT)["input_ids"]
    answer, wrong = tok.get_vocab()["list"], tok.get_vocab()["class"]
    clean = _metric(model, clean_ids, mask, answer, wrong)
    corrupt = _metric(model, corrupt_ids, mask, answer, wrong)
    # the gap is far above the product's same-metric rule (1e-5 x max(1, |metric|)), so both decide alike
    assert abs(clean - corrupt) > 100 * 1e-5
    value = _clean_output(model, module, clean_ids)[2]
    patched = _metric(model, corrupt_ids, mask, answer, wrong, module, 2, value)
    tolerance = effect_tolerance(clean, corrupt)
    assert result.effect[1][2] == pytest.approx((patched - corrupt) / (clean - corrupt), abs=tolerance)
    resid = patch(bert, MLM_CLEAN, MLM_CORRUPT, "list", "class", "resid")
    assert resid.effect[-1][mask] == pytest.approx(1.0, abs=tolerance)
    with pytest.raises(WorkbenchError, match="same position"):
        patch(bert, "a name is [MASK] the", MLM_CORRUPT, "list")


def test_patch_json_contract_and_one_line_errors(capsys, tiny_models):
    gpt2_folder = str(tiny_models["gpt2"])
    code = main(["patch", gpt2_folder, "--clean", CLEAN, "--corrupt", CORRUPT, "--answer", " list", "--site", "mlp",
                 "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    data = json.loads(out)
    # the tiny random GPT-2's two texts differ by a few thousandths of a logit: a weak contrast, in the note and JSON
    assert set(data) == KEYS | {"note", "weak_contrast"} and data["site"] == "mlp" and data["layers"] == [0, 1]
    gap = abs(data["clean_metric"] - data["corrupt_metric"])
    shown = f"{gap:.3f}" if gap >= 0.001 else f"{gap:.2g}"  # never "0.000" for a non-zero gap
    assert data["weak_contrast"] is True and f"differ by only {shown}" in data["note"]
    assert data["tokens"] == ["The", "Ġname", "Ġof", "Ġthe"] and len(data["effect"]) == 2
    # --target / --contrast are --answer / --wrong under the names dla and ablate use (issue 35)
    argv = ["patch", gpt2_folder, "--clean", CLEAN, "--corrupt", CORRUPT, "--site", "mlp", "--json"]
    assert main([*argv, "--answer", " list", "--wrong", " name"]) == 0
    by_answer = json.loads(capsys.readouterr().out)
    assert main([*argv, "--target", " list", "--contrast", " name"]) == 0
    assert json.loads(capsys.readouterr().out) == by_answer
    for argv, needles in (
        (["--corrupt", "The cat sat on the"], ["the clean text has 4", "the corrupted text has 7"]),
        (["--corrupt", CORRUPT, "--wrong", "extraordinarily unlikely"], ["--wrong", "not one"]),
    ):
        code = main(["patch", gpt2_folder, "--clean", CLEAN, "--answer", "Ġlist", *argv, "--json"])
        out, err = capsys.readouterr()
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
        assert all(n in err for n in needles), err
    # encoder-decoders are patched now (issue 35, test_encdec_patching.py); their input errors are one line too
    code = main(["patch", str(tiny_models["t5"]), "--clean", "a b", "--corrupt", "a c d e f", "--answer", "a",
                 "--json"])
    out, err = capsys.readouterr()
    assert code == 2 and "same number of tokens" in err and len(err.strip().splitlines()) == 1


def test_identical_texts_give_zero_effect_and_say_so(capsys, tiny_models, gpt2):
    result = patch(gpt2, CLEAN, CLEAN, "Ġlist", "Ġclass", "resid")
    assert result.clean_metric == result.corrupt_metric
    assert result.effect == [[0.0] * 4, [0.0] * 4] and "nothing to recover" in result.note
    code = main(["patch", str(tiny_models["gpt2"]), "--clean", CLEAN, "--corrupt", CLEAN, "--answer", "Ġlist",
                 "--json"])
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert code == 0 and set(data) == KEYS | {"note"} and data["effect"] == [[0.0] * 4] * 2


@pytest.mark.parametrize("kind", ["gpt2", "llama", "bert"])
def test_restoring_every_position_of_the_first_blocks_input_gives_the_clean_metric(tiny_models, gpt2, kind):
    from lm_workbench.engine.patching.tracing import restored_metric

    loaded = gpt2 if kind == "gpt2" else load_model(str(tiny_models[kind]))
    clean, corrupt = (MLM_CLEAN, MLM_CORRUPT) if kind == "bert" else (CLEAN, CORRUPT)
    answer, wrong = ("list", "class") if kind == "bert" else ("Ġlist", "Ġclass")
    metric, runs = restored_metric(loaded, clean, corrupt, answer, wrong, "input", 0)
    assert runs.clean_metric != runs.corrupt_metric
    assert metric == pytest.approx(runs.clean_metric, abs=1e-6)
    # the clean metric itself, computed here from the clean ids alone
    tok = loaded.tokenizer
    ids = tok(clean)["input_ids"]
    position = ids.index(tok.mask_token_id) if kind == "bert" else len(ids) - 1
    vocab = tok.get_vocab()
    assert metric == pytest.approx(_metric(loaded.model, ids, position, vocab[answer], vocab[wrong]), abs=1e-5)
    # all positions but one: not the clean run any more (the corrupted token stays corrupted)
    changed = [i for i, (a, b) in enumerate(zip(tok(clean)["input_ids"], tok(corrupt)["input_ids"])) if a != b]
    partial, _ = restored_metric(loaded, clean, corrupt, answer, wrong, "input", 0,
                                 [i for i in range(len(ids)) if i not in changed])
    assert partial == pytest.approx(runs.corrupt_metric, abs=1e-5)


def test_a_contrast_under_half_a_logit_is_called_weak_and_one_above_is_not(gpt2, monkeypatch):
    from lm_workbench.engine.patching import tracing

    weak = patch(gpt2, CLEAN, CORRUPT, "Ġlist", "Ġclass", "resid")
    gap = abs(weak.clean_metric - weak.corrupt_metric)
    assert gap < tracing.WEAK_CONTRAST and weak.weak_contrast and weak.to_dict()["weak_contrast"] is True
    assert f"{gap:.3f}" in weak.note
    monkeypatch.setattr(tracing, "WEAK_CONTRAST", gap / 2)  # the same texts against a line below their gap
    strong = patch(gpt2, CLEAN, CORRUPT, "Ġlist", "Ġclass", "resid")
    assert not strong.weak_contrast and strong.note is None and "weak_contrast" not in strong.to_dict()
    assert strong.effect == weak.effect  # the warning changes no number
    same = patch(gpt2, CLEAN, CLEAN, "Ġlist", "Ġclass", "resid")  # nothing to recover: that note, not this one
    assert not same.weak_contrast and "nothing to recover" in same.note


def test_a_small_gap_never_reads_as_zero():
    from lm_workbench.engine.patching.tracing import weak_contrast_note

    assert "differ by only 0.00021 " in weak_contrast_note(0.10021, 0.1)  # two significant digits below 0.001
    assert "differ by only 0.250 " in weak_contrast_note(0.5, 0.25)
