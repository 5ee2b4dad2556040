"""Merging fine-tuning runs (``lm-workbench finetune-merge``, ``lm_workbench.engine.finetune.merging``).

Real LoRA runs on the tiny BERT (a few steps each, lr 1e-2 so the factors move; ranks 2, 4 and 8, one
rsLoRA, one on query/key/value), an IA³ adapter made here directly through peft, and real prefix and
Houlsby runs for the refusals. Checked against independent computations: Σ wᵢ·sᵢ·BᵢAᵢ from each run's
saved factors (property-based over the weights, negative ones included, with the reported (1, −1) as its
own row), a model whose weights are W₀ + Σ wᵢ·ΔWᵢ set here by hand, the factor formula written out
below, peft's own ``add_weighted_adapter`` (``cat``, ``ties``) on a peft model holding both adapters, a
hand-worked TIES example, the set of values DARE may produce, and the logits of models loaded here with
peft / transformers directly (folded vs unfolded within 1e-5).
"""

from __future__ import annotations

import dataclasses
import json
import math
import shutil
from pathlib import Path

import tempfile

import pytest
import torch
from hypothesis import HealthCheck, assume, given, settings, strategies as st
from safetensors.torch import load_file

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.progress import drive
from tests.support.finetune_runs import lora_spec, sentiment_files
from lm_workbench.cli.main import main

TEXTS = ["What a brilliant trip!", "The hotel was messy.", "I found the concert tedious and long."]
LABELS = ["negative", "positive"]


def _run(spec):
    from lm_workbench.finetune.train import run_finetune

    run_finetune(spec)
    return Path(spec.out_dir)


@pytest.fixture(scope="module")
def runs(tiny_models, tmp_path_factory):
    """{name: output folder}: two LoRA r4 runs (seeds 1, 2), one r8, one rsLoRA r8, one r2 on query/key/value,
    one on another base, one with other labels, a prefix run and a Houlsby run; all on the tiny BERT, two or
    three steps each."""
    root = tmp_path_factory.mktemp("merging")
    base = tiny_models["bert"]
    data = sentiment_files(root / "data")

    def lora(name, seed=1, rank="4", on=base, files=data, method="lora", config=None):
        spec = dataclasses.replace(lora_spec(on, files, root / name, epochs=0.34), seed=seed, lr=1e-2,
                                   method=method)
        spec = dataclasses.replace(spec, method_config=config if config is not None else {"rank": rank})
        return _run(spec)

    other_base = root / "other-base"
    shutil.copytree(base, other_base)
    relabelled = root / "relabelled"
    relabelled.mkdir()
    files = []
    for path in data:
        text = path.read_text(encoding="utf-8").replace("\tpositive", "\tgood").replace("\tnegative", "\tbad")
        (relabelled / path.name).write_text(text, encoding="utf-8")
        files.append(relabelled / path.name)
    return {"base": base, "root": root,
            "a": lora("a", seed=1), "b": lora("b", seed=2), "r8": lora("r8", rank="8"),
            "rs": lora("rs", seed=4, method="rslora", config={"rank": "8"}),
            "qkv": lora("qkv", seed=5, config={"rank": "2", "target_modules": "query,key,value"}),
            "other_base": lora("other-base-run", on=other_base), "other_labels": lora("relabelled-run", files=files),
            "prefix": lora("prefix-run", method="prefix", config={"num_virtual_tokens": "4"}),
            "houlsby": lora("houlsby-run", method="houlsby", config={})}


def _inputs(base):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(base)(TEXTS, padding=True, return_tensors="pt")


def _peft_logits(base, folder, labels=LABELS):
    """Logits of a saved peft adapter folder loaded here through peft itself."""
    from peft import PeftModel

    from lm_workbench.engine.finetune.task_model import build_task_model

    model = PeftModel.from_pretrained(build_task_model(base, "seq-cls", labels), str(folder / "adapter")).eval()
    with torch.no_grad():
        return model(**_inputs(base)).logits


def _plain_logits(base, folder):
    """Logits of a plain model folder (a fold's output) loaded here through transformers itself."""
    from transformers import AutoModelForSequenceClassification

    model = AutoModelForSequenceClassification.from_pretrained(folder / "adapter").eval()
    with torch.no_grad():
        return model(**_inputs(base)).logits


def _merge(argv, capsys):
    code = main(["finetune-merge", *map(str, argv), "--json"])
    captured = capsys.readouterr()
    return code, (json.loads(captured.out) if code == 0 else captured.err)


def _config(folder):
    return json.loads((folder / "adapter" / "adapter_config.json").read_text(encoding="utf-8"))


def _scaling(folder):
    """LoRA's scaling, written out: α/r, or α/√r with rsLoRA."""
    config = _config(folder)
    return config["lora_alpha"] / (math.sqrt(config["r"]) if config.get("use_rslora") else config["r"])


def _updates(folder):
    """({layer: ΔW = s·B@A}, {other tensor: value}) from a LoRA folder's saved safetensors and config."""
    state, s = load_file(str(folder / "adapter/adapter_model.safetensors")), _scaling(folder)
    deltas = {k[:-len(".lora_A.weight")]: s * state[k.replace(".lora_A.", ".lora_B.")] @ state[k]
              for k in state if k.endswith(".lora_A.weight")}
    return deltas, {k: v for k, v in state.items() if ".lora_" not in k}


def _assert_exact(merged, folders, weights):
    """The merged folder's ΔW is Σ wᵢ·ΔWᵢ (a layer a run does not adapt counts 0) and its head Σ wᵢ·headᵢ."""
    got, got_heads = _updates(merged)
    each = [_updates(f) for f in folders]
    assert set(got) == {layer for deltas, _ in each for layer in deltas}
    for layer, have in got.items():
        want = sum(w * deltas[layer] for w, (deltas, _) in zip(weights, each) if layer in deltas)
        want = want if isinstance(want, torch.Tensor) else torch.zeros_like(have)
        assert (have - want).norm() <= 1e-5 * want.norm() + 1e-9, (layer, (have - want).norm() / want.norm())
    for key, have in got_heads.items():
        want = sum(w * heads[key] for w, (_, heads) in zip(weights, each))
        assert torch.allclose(have, want, atol=1e-6, rtol=1e-6), key


EXACT_RUNS = ("a", "b", "r8", "rs", "qkv")  # ranks 4, 4, 8, 8 (rsLoRA), 2 (also on key)


@st.composite
def _weighted_runs(draw):
    names = draw(st.lists(st.sampled_from(EXACT_RUNS), min_size=2, max_size=4, unique=True))
    weights = draw(st.lists(st.sampled_from([-2.5, -1.0, -0.4, 0.0, 0.3, 1.0, 1.7]), min_size=len(names),
                            max_size=len(names)))
    return names, weights


@settings(derandomize=True, deadline=None, max_examples=12, suppress_health_check=[HealthCheck.too_slow])
@given(case=_weighted_runs())
def test_linear_is_exactly_the_weighted_sum_of_the_updates(runs, case):
    from lm_workbench.engine.finetune.merging import merge_runs

    names, weights = case
    assume(any(w != 0 for w in weights))
    folders = [runs[n] for n in names]
    with tempfile.TemporaryDirectory() as tmp:
        said = drive(merge_runs(folders, Path(tmp) / "m", weights=weights))
        rank = sum(_config(f)["r"] for f in folders)
        assert said["rank"] == rank and said["density"] is None
        config = _config(Path(tmp) / "m")
        assert (config["r"], config["lora_alpha"], config["use_rslora"]) == (rank, rank, False)
        assert any("Σ wᵢ·ΔWᵢ exactly" in n for n in said["notes"])
        _assert_exact(Path(tmp) / "m", folders, weights)


def _by_hand_logits(base, folders, weights):
    """Logits of the base task model whose adapted weights are set here to W₀ + Σ wᵢ·ΔWᵢ and head to Σ wᵢ·headᵢ."""
    from lm_workbench.engine.finetune.task_model import build_task_model

    model = build_task_model(base, "seq-cls", LABELS).eval()
    params = dict(model.named_parameters())
    with torch.no_grad():
        for folder, weight in zip(folders, weights):
            deltas, heads = _updates(folder)
            for layer, delta in deltas.items():
                params[layer.removeprefix("base_model.model.") + ".weight"].add_(weight * delta)
        for key in _updates(folders[0])[1]:
            params[key.removeprefix("base_model.model.")].copy_(
                sum(w * _updates(f)[1][key] for f, w in zip(folders, weights)))
        return model(**_inputs(base)).logits


def test_the_reported_subtraction_is_exact_folded_or_not(runs, tmp_path, capsys):
    a, b = runs["a"], runs["b"]
    code, said = _merge([a, b, "--weights", "1,-1", "--out", tmp_path / "neg"], capsys)
    assert code == 0, said
    assert said["how"] == "linear" and said["weights"] == [1.0, -1.0] and said["rank"] == 8
    _assert_exact(tmp_path / "neg", [a, b], [1.0, -1.0])  # was: relative error ≈ 1 (factors mixed)
    want = _by_hand_logits(runs["base"], [a, b], [1.0, -1.0])
    assert torch.allclose(_peft_logits(runs["base"], tmp_path / "neg"), want, atol=1e-5, rtol=0)
    code, folded = _merge([a, b, "--weights", "1,-1", "--fold", "--out", tmp_path / "neg-folded"], capsys)
    assert code == 0 and folded["method"] == "full"
    assert torch.allclose(_plain_logits(runs["base"], tmp_path / "neg-folded"), want, atol=1e-5, rtol=0)


@pytest.mark.parametrize("how, weights", [("linear", "0,0"), ("linear-factors", "0,-0"), ("ties", "0,0,0"),
                                          ("dare", "0.0,0,0")])
def test_an_all_zero_combination_is_refused(runs, how, weights, tmp_path, capsys):
    folders = [runs["a"], runs["b"], runs["r8"] if how == "linear" else runs["b"]][:len(weights.split(","))]
    code, err = _merge([*folders, "--how", how, "--weights", weights, "--out", tmp_path / "zero"], capsys)
    assert code == 2 and err.count("\n") == 1 and "all 0" in err, err
    assert not (tmp_path / "zero").exists()


@pytest.mark.parametrize("how", ["linear", "linear-factors"])
def test_one_run_with_weight_one_is_that_run(runs, how, tmp_path):
    from lm_workbench.engine.finetune.merging import combine_runs, read_source

    a = runs["a"]
    out = drive(combine_runs([read_source(a)], [1.0], tmp_path / "same", how=how, density=0.5, seed=0))
    got, want = load_file(str(out / "adapter/adapter_model.safetensors")), load_file(str(a / "adapter/adapter_model.safetensors"))
    s = _scaling(a)
    assert _scaling(out) == 1.0 and _config(out)["r"] == 4 and got.keys() == want.keys()
    for key, tensor in want.items():  # linear: A' = s·A, B' = B; linear-factors: √s each; either way B'A' = s·BA
        factor = 1.0 if ".lora_" not in key else math.sqrt(s) if how == "linear-factors" else \
            s if ".lora_A." in key else 1.0
        assert torch.allclose(got[key], factor * tensor, atol=1e-7, rtol=1e-6), key
    assert torch.allclose(_peft_logits(runs["base"], out), _peft_logits(runs["base"], a), atol=1e-5, rtol=0)


def test_linear_factors_combines_factors_not_updates_and_heads_by_weight(runs, tmp_path, capsys):
    a, b = runs["a"], runs["b"]
    code, said = _merge([a, b, "--how", "linear-factors", "--weights", "0.3,0.7", "--out", tmp_path / "lin"], capsys)
    assert code == 0, said
    assert said["how"] == "linear-factors" and said["weights"] == [0.3, 0.7] and said["method"] == "lora"
    assert said["sources"] == [str(a.resolve()), str(b.resolve())] and said["out_dir"] == str(tmp_path / "lin")
    assert said["merged_from"] == said["sources"] and any("not Σ" in n for n in said["notes"])
    assert any("heads" in n for n in said["notes"])
    got = load_file(str(tmp_path / "lin/adapter/adapter_model.safetensors"))
    sa, sb = load_file(str(a / "adapter/adapter_model.safetensors")), load_file(str(b / "adapter/adapter_model.safetensors"))
    ra, rb = math.sqrt(0.3 * _scaling(a)), math.sqrt(0.7 * _scaling(b))
    for key in sa:
        want = ra * sa[key] + rb * sb[key] if ".lora_" in key else 0.3 * sa[key] + 0.7 * sb[key]
        assert torch.allclose(got[key], want, atol=1e-7, rtol=1e-6), key
    layer = next(k for k in sa if k.endswith("query.lora_A.weight")).replace(".lora_A.weight", "")
    merged = got[f"{layer}.lora_B.weight"] @ got[f"{layer}.lora_A.weight"]
    summed = sum(w * _scaling(f) * s[f"{layer}.lora_B.weight"] @ s[f"{layer}.lora_A.weight"]
                 for w, f, s in ((0.3, a, sa), (0.7, b, sb)))
    assert (merged - summed).norm() > 0.05 * summed.norm()  # the cross terms: not Σ w·ΔW
    assert any("cross terms" in n for n in said["notes"]) and said["rank"] == 4


def test_folded_and_unfolded_give_the_same_logits_and_predict_opens_it(runs, tmp_path, capsys):
    a, b = runs["a"], runs["b"]
    code, unfolded = _merge([a, b, "--how", "ties", "--out", tmp_path / "ties"], capsys)
    assert code == 0, unfolded
    code, folded = _merge([a, b, "--how", "ties", "--fold", "--out", tmp_path / "ties-folded"], capsys)
    assert code == 0 and folded["method"] == "full" and folded["folded"] and folded["density"] == 0.5
    assert any("factors A and B separately" in n and "cross terms" in n for n in unfolded["notes"])
    assert torch.allclose(_plain_logits(runs["base"], tmp_path / "ties-folded"),
                          _peft_logits(runs["base"], tmp_path / "ties"), atol=1e-5, rtol=0)
    assert main(["predict", str(tmp_path / "ties"), "--text", TEXTS[0], "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["label"] in LABELS


@pytest.mark.parametrize("how, peft_how, weights", [("ties", "ties", [0.6, 0.9]), ("linear", "cat", [0.6, -0.9]),
                                                    ("linear-factors", "linear", [-0.5, 1.5])])
def test_equals_peft_add_weighted_adapter(runs, how, peft_how, weights, tmp_path, capsys):
    from peft import LoraConfig, get_peft_model

    from lm_workbench.engine.finetune.task_model import build_task_model

    a, b = runs["a"], runs["b"]
    code, said = _merge([a, b, "--how", how, "--weights", ",".join(map(str, weights)), "--density", "0.4",
                         "--out", tmp_path / "t"], capsys)
    assert code == 0, said
    got = load_file(str(tmp_path / "t/adapter/adapter_model.safetensors"))
    config = json.loads((a / "adapter/adapter_config.json").read_text(encoding="utf-8"))
    model = get_peft_model(build_task_model(runs["base"], "seq-cls", LABELS),
                           LoraConfig(r=4, lora_alpha=config["lora_alpha"], target_modules=config["target_modules"]),
                           adapter_name="x1")
    model.add_adapter("x2", LoraConfig(r=4, lora_alpha=config["lora_alpha"], target_modules=config["target_modules"]))
    saved = {"x1": load_file(str(a / "adapter/adapter_model.safetensors")),
             "x2": load_file(str(b / "adapter/adapter_model.safetensors"))}
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            for adapter in ("x1", "x2"):
                if f".{adapter}.weight" in name and ".lora_" in name:
                    parameter.copy_(saved[adapter][name.replace(f".{adapter}.weight", ".weight")])
    model.add_weighted_adapter(["x1", "x2"], weights, "m", combination_type=peft_how, density=0.4)
    assert model.peft_config["m"].r == _config(tmp_path / "t")["r"] == (8 if how == "linear" else 4)
    compared = 0
    for name, parameter in model.named_parameters():
        if ".m.weight" in name:
            assert torch.allclose(got[name.replace(".m.weight", ".weight")], parameter, atol=1e-7, rtol=1e-6), name
            compared += 1
    assert compared == 8  # A and B of query and value in two layers


def test_ties_and_dare_on_tiny_tensors():
    from lm_workbench.engine.finetune.merge_math import combine_tensors

    t1, t2 = torch.tensor([3.0, -1.0, 0.5, -4.0]), torch.tensor([-2.0, 1.5, 0.2, 1.0])
    # TIES, density 0.5, weights 1 and 2 (by hand): keep the two largest of each: t1 -> [3, 0, 0, -4],
    # t2 -> [-2, 1.5, 0, 0]; signs by the summed kept values: [+, +, +(0), -]; weighted and averaged over
    # the agreeing entries: [3·1, 1.5·2, 0, -4·1] / [1, 1, 1 (none: clamped), 1]
    ties = combine_tensors([t1, t2], [1.0, 2.0], "ties", 0.5)
    assert torch.allclose(ties, torch.tensor([3.0, 3.0, 0.0, -4.0]))
    torch.manual_seed(0)
    big = [torch.randn(4000), torch.randn(4000)]
    dare = combine_tensors(big, [0.5, 2.0], "dare", 0.25)
    kept = [0.5 * big[0] / 0.25, 2.0 * big[1] / 0.25]  # each entry: none, either, or both kept
    choices = torch.stack([torch.zeros(4000), kept[0], kept[1], kept[0] + kept[1]])
    assert ((choices - dare).abs().min(dim=0).values < 1e-5).all()
    share_first = ((dare - kept[0]).abs() < 1e-6).float().mean() + ((dare - kept[0] - kept[1]).abs() < 1e-6).float().mean()
    assert 0.15 < share_first < 0.35  # the first tensor's entries are kept with probability 0.25


def test_dare_is_seeded(runs, tmp_path, capsys):
    a, b = runs["a"], runs["b"]
    files = []
    for name, seed in (("d1", 3), ("d2", 3), ("d3", 4)):
        assert _merge([a, b, "--how", "dare", "--seed", seed, "--out", tmp_path / name], capsys)[0] == 0
        files.append(load_file(str(tmp_path / name / "adapter/adapter_model.safetensors")))
    assert all(torch.equal(files[0][k], files[1][k]) for k in files[0])
    assert not all(torch.equal(files[0][k], files[2][k]) for k in files[0] if ".lora_" in k)


def test_one_lora_run_folds_as_before(runs, tmp_path, capsys):
    code, said = _merge([runs["a"], "--out", tmp_path / "folded"], capsys)
    assert code == 0 and said["method"] == "full" and said["merged_from"] == str(runs["a"].resolve())
    assert torch.allclose(_plain_logits(runs["base"], tmp_path / "folded"), _peft_logits(runs["base"], runs["a"]),
                          atol=1e-5, rtol=0)


@pytest.mark.parametrize("pair, words", [
    (("a", "other_base"), ["different bases", "other-base"]),
    (("a", "r8", "--how", "ties"), ["different ranks", "r=4", "r=8", "linear concatenates"]),
    (("a", "other_labels"), ["different label sets", "'good'"]),
    (("a", "prefix"), ["prefix tuning cannot be merged"]),
    (("houlsby",), ["houlsby adapters cannot be merged"]),
])
def test_refusals_are_one_line_naming_what_differs(runs, pair, words, tmp_path, capsys):
    code, err = _merge([*(runs.get(p, p) for p in pair), "--out", tmp_path / "refused"], capsys)
    assert code == 2 and err.count("\n") == 1, err
    for word in words:
        assert word in err, err
    if "bases" in words[0]:
        assert str(runs["base"]) in err
    assert not (tmp_path / "refused").exists()


def _ia3_run(base, folder, seed):
    """An IA³ adapter made directly through peft, its vectors moved off 1, saved as a run folder."""
    from peft import IA3Config, get_peft_model

    from lm_workbench.engine.finetune.saved import write_manifest
    from lm_workbench.engine.finetune.task_model import build_task_model

    torch.manual_seed(seed)
    model = get_peft_model(build_task_model(base, "seq-cls", LABELS), IA3Config(
        task_type="SEQ_CLS", target_modules=["key", "value", "output.dense"], feedforward_modules=["output.dense"],
        modules_to_save=["classifier"]))
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            if "ia3_l" in name:
                parameter.copy_(1.0 + 0.3 * torch.randn_like(parameter))
    model.save_pretrained(str(folder / "adapter"))
    write_manifest(folder, base_model=str(base), task="seq-cls", method="ia3", method_config={}, labels=LABELS,
                   text_columns=None, max_length=24, run_id=None)
    return folder


def test_ia3_folds_and_combines_linearly_only(runs, tmp_path, capsys):
    base = runs["base"]
    one, two = _ia3_run(base, tmp_path / "ia3-1", 5), _ia3_run(base, tmp_path / "ia3-2", 6)
    code, said = _merge([one, "--out", tmp_path / "ia3-folded"], capsys)
    assert code == 0 and said["adapter_type"] == "IA3"
    assert torch.allclose(_plain_logits(base, tmp_path / "ia3-folded"), _peft_logits(base, one), atol=1e-5, rtol=0)
    code, said = _merge([one, two, "--weights", "0.25,0.75", "--out", tmp_path / "ia3-both"], capsys)
    assert code == 0, said
    got = load_file(str(tmp_path / "ia3-both/adapter/adapter_model.safetensors"))
    s1, s2 = (load_file(str(f / "adapter/adapter_model.safetensors")) for f in (one, two))
    assert all(torch.allclose(got[k], 0.25 * s1[k] + 0.75 * s2[k], atol=1e-7) for k in s1)  # weights sum to 1
    code, err = _merge([one, two, "--how", "ties", "--out", tmp_path / "ia3-ties"], capsys)
    assert code == 2 and "only linearly" in err
    code, said = _merge([one, two, "--how", "linear-factors", "--weights", "1,-1", "--out", tmp_path / "f"], capsys)
    got = load_file(str(tmp_path / "f/adapter/adapter_model.safetensors"))
    assert code == 0 and any("sum to 0" in n for n in said["notes"])  # peft's Σ wᵢ·lᵢ: ΔW only when Σ w = 1
    assert all(torch.allclose(got[k], s1[k] - s2[k], atol=1e-7) for k in s1)


def _ia3_by_hand_logits(base, folders, weights):
    """Logits of the base task model with W₀ + Σ wᵢ·ΔWᵢ set here by hand, ΔWᵢ = (lᵢ − 1)·W₀ (rows for an output
    vector l of shape (out, 1), bias too; columns for a feed-forward input vector of shape (1, in))."""
    from lm_workbench.engine.finetune.task_model import build_task_model

    model = build_task_model(base, "seq-cls", LABELS).eval()
    params = dict(model.named_parameters())
    states = [load_file(str(f / "adapter/adapter_model.safetensors")) for f in folders]
    with torch.no_grad():
        for key in states[0]:
            name = key.removeprefix("base_model.model.")
            if not key.endswith(".ia3_l"):
                params[name].copy_(sum(w * state[key] for w, state in zip(weights, states)))
                continue
            weight, bias = params[name[:-len("ia3_l")] + "weight"], params[name[:-len("ia3_l")] + "bias"]
            w0, b0 = weight.clone(), bias.clone()
            for w, state in zip(weights, states):
                change = state[key] - 1.0
                weight.add_(w * change * w0)
                if change.shape[1] == 1:
                    bias.add_(w * change.flatten() * b0)
        return model(**_inputs(base)).logits


def test_ia3_linear_is_exact_task_arithmetic(runs, tmp_path, capsys):
    base = runs["base"]
    one, two = _ia3_run(base, tmp_path / "ia3-1", 5), _ia3_run(base, tmp_path / "ia3-2", 6)
    code, said = _merge([one, two, "--weights", "1,-1", "--out", tmp_path / "neg"], capsys)
    assert code == 0 and any("Σ wᵢ·ΔWᵢ exactly" in n for n in said["notes"]) and said["rank"] is None, said
    got = load_file(str(tmp_path / "neg/adapter/adapter_model.safetensors"))
    s1, s2 = (load_file(str(f / "adapter/adapter_model.safetensors")) for f in (one, two))
    assert all(torch.allclose(got[k], 1 + (s1[k] - 1) - (s2[k] - 1) if "ia3_l" in k else s1[k] - s2[k], atol=1e-6)
               for k in s1)
    assert torch.allclose(_peft_logits(base, tmp_path / "neg"), _ia3_by_hand_logits(base, [one, two], [1.0, -1.0]),
                          atol=1e-5, rtol=0)


def test_bad_weights_and_density_are_refused(runs, tmp_path):
    from lm_workbench.engine.finetune.merging import merge_runs

    with pytest.raises(WorkbenchError, match="2 run"):
        drive(merge_runs([runs["a"], runs["b"]], tmp_path / "x", weights="0.5"))
    with pytest.raises(WorkbenchError, match="density"):
        drive(merge_runs([runs["a"], runs["b"]], tmp_path / "x", how="ties", density=0.0))


def test_a_merge_run_copies_as_its_command_line_and_runs_again():
    import shlex

    from lm_workbench.cli.parser import build_parser
    from lm_workbench.finetune.merge_runs import MergeSpec
    from lm_workbench.runs.kinds import run_kind
    from lm_workbench.runs.run_context import resolve_target

    plain = MergeSpec(sources=["/r/a", "/r/b"], out_dir="/r/m", how="linear-factors", weights=[1, -1], density=0.4)
    assert shlex.split(plain.cli_command())[4:] == ["--how", "linear-factors", "--weights", "1,-1", "--out", "/r/m"]
    with pytest.raises(WorkbenchError, match="all 0"):
        dataclasses.replace(plain, weights=[0.0, 0.0]).check()
    spec = MergeSpec(sources=["/r/a", "/r/b"], out_dir="/r/m", how="dare", weights=[0.3, 0.7], density=0.4, seed=5,
                     fold=True)
    args = build_parser().parse_args(shlex.split(spec.cli_command())[1:])
    assert (args.folders, args.out, args.how, args.weights, args.density, args.seed, args.fold) == \
        (["/r/a", "/r/b"], "/r/m", "dare", "0.3,0.7", 0.4, 5, True)
    kind = run_kind("finetune-merge")
    assert kind.cli_command(spec.to_dict()) == spec.cli_command() and callable(resolve_target(kind.target))


def _dora_run(base, folder, seed):
    """A DoRA adapter (peft's LoRA with use_dora) made here, its B factors and magnitudes moved off their start."""
    from peft import LoraConfig, get_peft_model

    from lm_workbench.engine.finetune.saved import write_manifest
    from lm_workbench.engine.finetune.task_model import build_task_model

    torch.manual_seed(seed)
    model = get_peft_model(build_task_model(base, "seq-cls", LABELS), LoraConfig(
        task_type="SEQ_CLS", r=4, lora_alpha=8, use_dora=True, target_modules=["query", "value"],
        modules_to_save=["classifier"]))
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            if "lora_B" in name or "magnitude" in name:
                parameter.add_(0.2 * torch.randn_like(parameter))
    model.save_pretrained(str(folder / "adapter"))
    write_manifest(folder, base_model=str(base), task="seq-cls", method="dora", method_config={}, labels=LABELS,
                   text_columns=None, max_length=24, run_id=None)
    return folder


def test_dora_folds_and_is_not_combined(runs, tmp_path, capsys):
    base = runs["base"]
    one, two = _dora_run(base, tmp_path / "dora-1", 7), _dora_run(base, tmp_path / "dora-2", 8)
    code, said = _merge([one, "--out", tmp_path / "dora-folded"], capsys)
    assert code == 0 and said["method"] == "full"
    assert torch.allclose(_plain_logits(base, tmp_path / "dora-folded"), _peft_logits(base, one), atol=1e-5, rtol=0)
    code, err = _merge([one, two, "--out", tmp_path / "dora-both"], capsys)
    assert code == 2 and "DoRA" in err and "fold each" in err
