"""Saving only the trained weights and reloading them onto a fresh base model: bit-identical logits."""

from __future__ import annotations

import json

import pytest
import torch
from safetensors.torch import load_file

from lm_workbench.engine.errors import ModelFormatError, WorkbenchError
from lm_workbench.engine.finetune.methods.bitfit import apply_bitfit
from lm_workbench.engine.finetune.methods.bottleneck import BottleneckConfig, add_bottleneck_adapters
from lm_workbench.engine.finetune.methods.saving import CONFIG_FILE, WEIGHTS_FILE, load_adapter, save_adapter
from tests.support.finetune_classifier_models import tiny_classifier, two_class_batch

torch.set_num_threads(1)

METHODS = {
    "houlsby": lambda m: add_bottleneck_adapters(m, BottleneckConfig(variant="houlsby", reduction_factor=8)),
    "pfeiffer": lambda m: add_bottleneck_adapters(m, BottleneckConfig(variant="pfeiffer", non_linearity="gelu")),
    "bitfit": apply_bitfit,
}


def _train_a_little(model, steps: int = 5):
    ids, labels = two_class_batch(size=16)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-2)
    model.train()
    for _ in range(steps):
        loss = model(ids, labels=labels).loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return model.eval()


@pytest.mark.parametrize("kind", ["bert", "gpt2"])
@pytest.mark.parametrize("method", sorted(METHODS))
def test_reload_onto_a_fresh_base_gives_bit_identical_logits(tmp_path, kind, method):
    tuned = _train_a_little(METHODS[method](tiny_classifier(kind, seed=3)))
    ids, _ = two_class_batch(size=8, seed=9)
    with torch.no_grad():
        expected = tuned(ids).logits
    save_adapter(tuned, tmp_path / "adapter")

    reloaded = load_adapter(tiny_classifier(kind, seed=3), tmp_path / "adapter").eval()
    with torch.no_grad():
        assert torch.equal(reloaded(ids).logits, expected)
        # The trained weights matter: the fresh base alone predicts differently.
        assert not torch.equal(tiny_classifier(kind, seed=3)(ids).logits, expected)


@pytest.mark.parametrize("method", sorted(METHODS))
def test_the_file_holds_only_the_trained_weights(tmp_path, method):
    model = METHODS[method](tiny_classifier("bert"))
    save_adapter(model, tmp_path)
    saved = load_file(str(tmp_path / WEIGHTS_FILE))
    trainable = {n for n, p in model.named_parameters() if p.requires_grad}
    assert set(saved) == trainable
    assert not any(n.startswith("bert.embeddings.word_embeddings") for n in saved)
    description = json.loads((tmp_path / CONFIG_FILE).read_text())
    assert description["base_architecture"] == "BertForSequenceClassification"
    assert len(description["base_fingerprint"]) == 64
    assert description["method"] == ("bitfit" if method == "bitfit" else "bottleneck")


def test_a_different_base_or_folder_is_refused(tmp_path):
    save_adapter(METHODS["houlsby"](tiny_classifier("bert", seed=3)), tmp_path / "adapter")
    with pytest.raises(WorkbenchError, match="weights differ from the ones the adapter was trained on"):
        load_adapter(tiny_classifier("bert", seed=4), tmp_path / "adapter")
    with pytest.raises(WorkbenchError, match="trained on a BertForSequenceClassification, not a GPT2"):
        load_adapter(tiny_classifier("gpt2", seed=3), tmp_path / "adapter")
    with pytest.raises(ModelFormatError, match="holds no adapter_config.json"):
        load_adapter(tiny_classifier("bert", seed=3), tmp_path)
    with pytest.raises(WorkbenchError, match="no adapter or BitFit method attached"):
        save_adapter(tiny_classifier("bert"), tmp_path / "other")
