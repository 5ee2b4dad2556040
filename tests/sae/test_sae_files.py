"""SAELens v6's folder layout: a folder written here from the documented keys loads and encodes by the formula;
``save_sae`` writes those keys back; a width or site that does not fit the model, or another model's
fingerprint, is refused in one line naming both."""

from __future__ import annotations

import json

import pytest
import torch
from safetensors.torch import load_file, save_file

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.models.loading import load_source
from lm_workbench.engine.sae.files import load_sae, save_sae
from lm_workbench.engine.sae.kinds import SparseAutoencoder
from lm_workbench.sae.reading import load_checked_sae


def _write_saelens(folder, d_in, d_sae, hook, architecture="jumprelu", seed=0):
    gen = torch.Generator().manual_seed(seed)
    weights = {"W_enc": torch.randn(d_in, d_sae, generator=gen), "W_dec": torch.randn(d_sae, d_in, generator=gen),
               "b_enc": torch.randn(d_sae, generator=gen), "b_dec": torch.randn(d_in, generator=gen)}
    if architecture == "jumprelu":
        weights["threshold"] = torch.rand(d_sae, generator=gen)
    folder.mkdir(parents=True)
    save_file(weights, str(folder / "sae_weights.safetensors"))
    cfg = {"architecture": architecture, "d_in": d_in, "d_sae": d_sae, "dtype": "float32", "device": "cpu",
           "apply_b_dec_to_input": True, "normalize_activations": "none", "reshape_activations": "none",
           "metadata": {"model_name": "gpt2", "hook_name": hook, "hook_head_index": None, "context_size": 128,
                        "prepend_bos": True}}
    (folder / "cfg.json").write_text(json.dumps(cfg))
    return weights


def test_a_saelens_v6_folder_loads_and_encodes_by_the_formula(tmp_path):
    w = _write_saelens(tmp_path / "gs", 8, 24, "blocks.1.hook_resid_post")
    file = load_sae(tmp_path / "gs")
    assert (file.sae.kind, file.hook_name, file.fingerprint) == ("jumprelu", "blocks.1.hook_resid_post", None)
    x = torch.randn(5, 8, generator=torch.Generator().manual_seed(3))
    pre = (x - w["b_dec"]) @ w["W_enc"] + w["b_enc"]
    f = pre * (pre > w["threshold"]).float()
    assert torch.allclose(file.sae.encode(x), f, atol=1e-5)
    assert torch.allclose(file.sae(x), f @ w["W_dec"] + w["b_dec"], atol=1e-4)


def test_save_writes_the_v6_keys_and_reads_back(tmp_path):
    sae = SparseAutoencoder("topk", 8, 32, 5, seed=4)
    save_sae(tmp_path / "out", sae, hook_name="blocks.0.hook_mlp_out", model_name="m", fingerprint="abc",
             scaling_factor=2.0)
    cfg = json.loads((tmp_path / "out" / "cfg.json").read_text())
    assert {"architecture", "d_in", "d_sae", "normalize_activations", "apply_b_dec_to_input", "metadata"} <= set(cfg)
    assert (cfg["architecture"], cfg["d_in"], cfg["d_sae"], cfg["k"]) == ("topk", 8, 32, 5)
    assert cfg["metadata"]["hook_name"] == "blocks.0.hook_mlp_out"
    weights = load_file(str(tmp_path / "out" / "sae_weights.safetensors"))
    assert set(weights) == {"W_enc", "W_dec", "b_enc", "b_dec"} and weights["W_enc"].shape == (8, 32)
    back = load_sae(tmp_path / "out")
    x = torch.randn(4, 8)
    assert back.fingerprint == "abc" and torch.allclose(back.sae(x), sae(x), atol=1e-6)


@pytest.fixture(scope="module")
def gpt2(tiny_models):
    return load_source(str(tiny_models["gpt2"]))


@pytest.mark.parametrize("d_in, hook, says", [
    (16, "blocks.1.hook_resid_post", r"reads blocks\.1\.hook_resid_post of width 16, but .*is 32 wide"),
    (32, "blocks.7.hook_resid_post", r"reads blocks\.7\.hook_resid_post, which .* does not have"),
])
def test_an_sae_that_does_not_fit_the_model_is_refused_naming_both(tmp_path, gpt2, d_in, hook, says):
    _write_saelens(tmp_path / "sae", d_in, 64, hook, architecture="standard")
    with pytest.raises(WorkbenchError, match=says):
        load_checked_sae(gpt2, str(tmp_path / "sae"))


def test_another_models_fingerprint_is_refused(tmp_path, gpt2):
    save_sae(tmp_path / "sae", SparseAutoencoder("standard", 32, 64), hook_name="blocks.0.hook_resid_post",
             model_name="other", fingerprint="0" * 64)
    with pytest.raises(WorkbenchError, match="trained on another model"):
        load_checked_sae(gpt2, str(tmp_path / "sae"))
