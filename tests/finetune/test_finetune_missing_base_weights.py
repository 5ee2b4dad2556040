"""A base saved without some of the task model's base weights (a masked LM has no BERT pooler) reloads into the
same model every time: those weights are fixed by their names, not drawn afresh, so a LoRA classifier's reload
predicts what the trained model predicted."""

from __future__ import annotations

import zlib

import pytest
import torch
from safetensors import safe_open

from lm_workbench.engine.finetune.task_model import build_task_model
from tests.support.finetune_method_models import VOCAB, train_a_little
from lm_workbench.extensions.registry import FineTuneMethodRegistry


@pytest.fixture(scope="module")
def mlm_base(tmp_path_factory):
    from transformers import BertConfig, BertForMaskedLM

    folder = tmp_path_factory.mktemp("mlm-base")
    torch.manual_seed(0)
    config = BertConfig(vocab_size=VOCAB, hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=32, max_position_embeddings=64)
    BertForMaskedLM(config).save_pretrained(folder, safe_serialization=True)
    return folder


def test_the_checkpoint_lacks_the_pooler_and_every_build_gets_the_same_one(mlm_base):
    with safe_open(str(mlm_base / "model.safetensors"), "pt") as f:
        assert not any("pooler" in key for key in f.keys())  # what a masked LM's checkpoint holds
    torch.manual_seed(1)
    first = build_task_model(mlm_base, "seq-cls", ["neg", "neutral", "pos"])
    torch.manual_seed(2)
    second = build_task_model(mlm_base, "seq-cls", ["neg", "neutral", "pos"])
    weight = "bert.pooler.dense.weight"
    expected = torch.randn(16, 16, generator=torch.Generator().manual_seed(zlib.crc32(weight.encode()))) * 0.02
    assert torch.equal(first.state_dict()[weight], expected) and torch.equal(second.state_dict()[weight], expected)
    assert torch.equal(first.state_dict()["bert.pooler.dense.bias"], torch.zeros(16))
    assert not torch.equal(first.classifier.weight, second.classifier.weight)  # the head: the caller's seed


def test_a_lora_classifier_on_a_masked_lm_base_reloads_to_the_same_logits(mlm_base, tmp_path):
    method = FineTuneMethodRegistry.discover().methods()["lora"]
    torch.manual_seed(1)
    model = method.apply(build_task_model(mlm_base, "seq-cls", ["neg", "neutral", "pos"]), method.default_config(), "seq-cls")
    tuned = train_a_little(model, "seq-cls")
    method.save(tuned, tmp_path / "saved")
    ids = torch.randint(3, VOCAB, (3, 8), generator=torch.Generator().manual_seed(5))
    with torch.no_grad():
        expected = tuned.eval()(input_ids=ids).logits
    torch.manual_seed(99)  # another seed at reload: only what the run saved may decide the logits
    reloaded = method.load(build_task_model(mlm_base, "seq-cls", ["neg", "neutral", "pos"]), tmp_path / "saved")
    with torch.no_grad():
        assert torch.equal(reloaded.eval()(input_ids=ids).logits, expected)
