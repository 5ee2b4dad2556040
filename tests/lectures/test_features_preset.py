"""The features-and-steering preset's mechanism on a tiny GPT-2 (not its quality): the step's SAE recipe is trained
once into the data folder and kept, and ``presets verify`` computes the Features view's metrics from it; the numbers
are checked against the SAE's saved weights applied by hand to a plain transformers forward."""

from __future__ import annotations

import copy
import json

import pytest
import torch
from safetensors.torch import load_file
from transformers import AutoTokenizer, GPT2LMHeadModel

from lm_workbench.cli.main import main
from lm_workbench.lectures.library import builtin_presets
from lm_workbench.lectures.verify import HOLDS
from tests.support.tiny_models import corpus_lines

TEXT = "The list is a mutable sequence"


def _by_hand(folder: str, sae_dir, text: str) -> torch.Tensor:
    """[T, d_sae] TopK features of block 1's output, from the saved weights (cfg.json's k)."""
    tok, model = AutoTokenizer.from_pretrained(folder), GPT2LMHeadModel.from_pretrained(folder).eval()
    seen = []
    handle = model.transformer.h[1].register_forward_hook(
        lambda m, a, out: seen.append(out[0] if isinstance(out, tuple) else out))
    with torch.no_grad():
        model(**tok(text, return_tensors="pt"))
    handle.remove()
    w = load_file(str(sae_dir / "sae_weights.safetensors"))
    k = json.loads((sae_dir / "cfg.json").read_text())["k"]
    pre = (seen[0][0] - w["b_dec"]) @ w["W_enc"] + w["b_enc"]
    values, index = pre.topk(k, dim=-1)
    return torch.zeros_like(pre).scatter(-1, index, values.relu())


def test_the_preset_trains_its_sae_once_and_verify_reads_the_features_from_it(tiny_models, fresh_home, tmp_path,
                                                                             capsys):
    gpt2 = str(tiny_models["gpt2"])
    (tmp_path / "corpus.txt").write_text("\n".join(corpus_lines(80)), encoding="utf-8")
    preset = copy.deepcopy(next(p for p in builtin_presets() if p.name == "features-and-steering").to_dict())
    preset["model"] = gpt2
    recipe = {"site": "blocks.1.hook_resid_post", "kind": "topk", "sparsity": 4, "expansion": 2, "steps": 6,
              "batch": 64, "buffer_tokens": 256, "seed": 0, "corpus": "file:corpus.txt"}
    for step in preset["steps"]:
        step["inputs"]["text"] = TEXT
        step["settings"]["sae"] = recipe
        step["settings"]["corpus"] = "file:corpus.txt"
    preset["steps"][0]["claims"] = [
        {"text": "n features", "metric": "active_features", "op": ">=", "value": 1},
        {"text": "peak", "metric": "feature_peak", "op": ">", "value": 0},
    ]
    preset["steps"][1]["claims"] = [{"text": "density", "metric": "density", "op": ">", "value": 0}]
    preset["steps"][2]["claims"] = [{"text": "kl", "metric": "steer_kl", "op": ">=", "value": 0}]
    preset["steps"][3]["claims"] = [
        {"text": "no change at 0", "metric": "grid_kl", "args": {"layer": 0, "times": 0}, "op": "~=", "value": 0,
         "tolerance": 1e-6},
        {"text": "concept 0 at 0", "metric": "concept_score", "args": {"layer": -1, "times": 0}, "op": "~=",
         "value": 0, "tolerance": 1e-5}]
    file = tmp_path / "features.json"
    file.write_text(json.dumps(preset))
    assert main(["presets", "verify", "--json", str(file)]) == 0, capsys.readouterr()
    rows = json.loads(capsys.readouterr().out)["claims"]
    assert [r["status"] for r in rows] == [HOLDS] * 6

    [sae_dir] = [d for d in (fresh_home / "data" / "saes").iterdir()]
    f = _by_hand(gpt2, sae_dir, TEXT)
    peaks = f.max(0).values
    assert rows[0]["value"] == int((peaks > 0).sum())
    assert rows[1]["value"] == pytest.approx(float(peaks.max()), rel=1e-4)  # the strongest feature's peak

    # the SAE is kept: a second verify reads it again and trains nothing
    stamp = (sae_dir / "sae_weights.safetensors").stat().st_mtime_ns
    assert main(["presets", "verify", "--json", str(file)]) == 0
    capsys.readouterr()
    assert (sae_dir / "sae_weights.safetensors").stat().st_mtime_ns == stamp
    assert [d.name for d in (fresh_home / "data" / "saes").iterdir()] == [sae_dir.name]
