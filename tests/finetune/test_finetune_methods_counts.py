"""Trainable parameters of every built-in method equal closed forms worked out here from the model's sizes.

Tiny BERT: d = 32 wide, L = 2 layers, feed-forward 64, 3 labels (QA: 2 outputs).
"""

from __future__ import annotations

import pytest
import torch

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.plugin_api import SITES, config_fields, count_parameters
from tests.support.finetune_method_models import HIDDEN as D
from tests.support.finetune_method_models import INTERMEDIATE as I
from tests.support.finetune_method_models import LABELS as C
from tests.support.finetune_method_models import LAYERS as L
from tests.support.finetune_method_models import task_batch, task_model
from lm_workbench.finetune.methods import finetune_method, finetune_methods
from lm_workbench.settings import Settings

torch.set_num_threads(1)

METHODS = finetune_methods(Settings())
HEAD = D * C + C  # BERT's classifier: Linear(d, C)


def trainable(name: str, kind: str = "bert", task: str = "seq-cls", **settings) -> int:
    method = METHODS[name]
    config = method.default_config()
    for key, value in settings.items():
        setattr(config, key, value)
    model = method.apply(task_model(kind, task), config, task)
    return count_parameters(model).trainable


def test_the_seventeen_methods_are_registered_with_everything_the_form_needs():
    assert sorted(METHODS) == ["bitfit", "dora", "features", "full", "houlsby", "ia3", "loha", "lokr", "lora", "mam",
                               "oft", "parallel-adapter", "pfeiffer", "prefix", "prompt", "rslora", "vera"]
    for name, method in METHODS.items():
        assert method.title and method.description and method.lr_reason, name
        assert set(method.attachment.sites) <= set(SITES) and "head" in method.attachment.sites
        for spec in config_fields(method.Config):
            assert spec.help, (name, spec.name)
    assert METHODS["full"].default_lr < 1e-4 and all(
        METHODS[n].default_lr >= 1e-3 for n in ("lora", "prefix", "prompt", "houlsby", "pfeiffer", "bitfit"))


def test_full_trains_everything():
    model = task_model("bert", "seq-cls")
    total = sum(p.numel() for p in model.parameters())
    assert trainable("full") == total


def test_lora_trains_r_times_d_in_plus_d_out_per_targeted_matrix_plus_the_head():
    r = 4  # query and value in both layers, each d x d
    assert trainable("lora", rank=r) == L * 2 * r * (D + D) + HEAD
    assert trainable("lora", rank=r, target_modules="query,key,value,intermediate.dense") == (
        L * (3 * r * (D + D) + r * (D + I)) + HEAD)


def test_lora_on_gpt2_targets_the_fused_conv1d_projection_with_fan_in_fan_out():
    r = 4  # GPT-2's c_attn: Conv1D d -> 3d; its score head has no bias
    model = METHODS["lora"].apply(task_model("gpt2", "seq-cls"), METHODS["lora"].Config(rank=r), "seq-cls")
    assert count_parameters(model).trainable == L * r * (D + 3 * D) + D * C
    assert model.peft_config["default"].fan_in_fan_out is True


@pytest.mark.parametrize("kind", ["bart", "t5"])
def test_lora_on_seq2seq_adapts_every_attentions_query_and_value_and_no_head(kind):
    r = 4  # encoder self-attention, decoder self- and cross-attention; T5's inner width is heads x d_kv = d
    assert trainable("lora", kind, "seq2seq", rank=r) == (L + 2 * L) * 2 * r * (D + D)


def test_prompt_tuning_trains_n_times_d_plus_the_head():
    assert trainable("prompt", num_virtual_tokens=7) == 7 * D + HEAD
    assert trainable("prompt", "bart", "seq2seq", num_virtual_tokens=7) == 7 * D  # one prompt, for the encoder


def test_prefix_tuning_trains_n_times_2_l_d_or_its_reparameterisation_mlp():
    n, h = 5, 16
    assert trainable("prefix", num_virtual_tokens=n, prefix_projection=False) == n * 2 * L * D + HEAD
    mlp = (D * h + h) + (h * 2 * L * D + 2 * L * D)
    assert trainable("prefix", num_virtual_tokens=n, encoder_hidden_size=h) == n * D + mlp + HEAD


def test_houlsby_trains_two_adapters_per_layer_and_the_layer_norms():
    m = D // 16
    adapter = 2 * m * D + D + m
    layer_norms = (1 + 2 * L) * 2 * D  # the embeddings' and two per layer, scale and shift
    assert trainable("houlsby") == L * 2 * adapter + layer_norms + HEAD
    assert trainable("houlsby", train_layer_norms=False, reduction_factor=4) == L * 2 * (2 * 8 * D + D + 8) + HEAD


def test_pfeiffer_trains_one_adapter_per_layer():
    m = D // 16
    assert trainable("pfeiffer") == L * (2 * m * D + D + m) + HEAD


def test_bitfit_trains_every_bias_and_the_head():
    per_layer = 3 * D + D + D + I + D + D  # q, k, v; attention output; its LayerNorm; ffn in; ffn out; LayerNorm
    assert trainable("bitfit") == D + L * per_layer + D + HEAD  # + the embeddings' LayerNorm and the pooler


def test_features_train_the_mix_and_a_new_head():
    assert trainable("features") == (L + 1) + 1 + HEAD
    assert trainable("features", task="qa") == (L + 1) + 1 + D * 2 + 2
    model = METHODS["features"].apply(task_model("bert", "token-cls"), METHODS["features"].default_config(),
                                      "token-cls")
    inputs, targets = task_batch("token-cls")
    out = model(**inputs, **targets)
    assert out.logits.shape == (*inputs["input_ids"].shape, C) and out.loss.item() > 0


def test_features_mix_the_embeddings_and_every_layer():
    """With all weight on one layer the mixed vector is gamma times that layer's hidden state."""
    method = METHODS["features"]
    base = task_model("bert", "token-cls")
    model = method.apply(task_model("bert", "token-cls"), method.default_config(), "token-cls").eval()
    inputs, _ = task_batch("token-cls")
    with torch.no_grad():
        model.mix.scalars.copy_(torch.tensor([-1e4, 1e4, -1e4]))
        model.mix.gamma.fill_(2.0)
        states = base.bert(**inputs, output_hidden_states=True).hidden_states
        expected = model.head(2.0 * states[1])
        assert torch.allclose(model(**inputs).logits, expected, atol=1e-5)


def test_a_wrong_lora_target_is_an_error_naming_the_layers_there_are():
    with pytest.raises(WorkbenchError, match=r"LoRA target 'quer' names no linear layer.*key.*query.*value"):
        trainable("lora", target_modules="query,quer")
    with pytest.raises(WorkbenchError, match="names no linear layer of GPT2ForSequenceClassification"):
        trainable("lora", "gpt2", target_modules="query_proj_x")


@pytest.mark.parametrize("name, task", [("prompt", "token-cls"), ("prompt", "qa"), ("features", "seq2seq"),
                                        ("houlsby", "seq2seq"), ("pfeiffer", "seq2seq")])
def test_a_method_refuses_a_task_it_does_not_support(name, task):
    with pytest.raises(WorkbenchError, match=f"{name} does not support the {task} task"):
        METHODS[name].apply(task_model("bert", "seq-cls"), METHODS[name].default_config(), task)


def test_bad_settings_and_unknown_methods_are_one_line_errors():
    with pytest.raises(WorkbenchError, match="rank must be at least 1"):
        trainable("lora", rank=0)
    with pytest.raises(WorkbenchError, match="init must be one of vocab, random, text"):
        trainable("prompt", init="zeros")
    with pytest.raises(WorkbenchError, match="unknown finetune-method 'qlora'; available: bitfit, dora, features"):
        finetune_method("qlora", Settings())
    with pytest.raises(WorkbenchError, match="already adapted"):
        METHODS["lora"].apply(METHODS["lora"].apply(task_model("bert", "seq-cls"), METHODS["lora"].Config(),
                                                    "seq-cls"), METHODS["lora"].Config(), "seq-cls")


def test_prompt_tuning_can_start_from_the_embeddings_of_a_text(tiny_models):
    from transformers import AutoTokenizer, BertForSequenceClassification

    folder = tiny_models["bert"]
    model = BertForSequenceClassification.from_pretrained(folder, num_labels=C)
    method = METHODS["prompt"]
    config = method.Config(num_virtual_tokens=4, init="text", init_text="the object")
    tuned = method.apply(model, config, "seq-cls")
    ids = AutoTokenizer.from_pretrained(folder)("the object")["input_ids"]  # [CLS] the object [SEP]
    assert len(ids) == 4
    words = model.bert.embeddings.word_embeddings.weight[ids]
    assert torch.equal(tuned.prompt_encoder["default"].embedding.weight, words)


def test_the_attachment_follows_the_settings():
    lora = METHODS["lora"]
    assert lora.attachment_for(lora.default_config()).sites == ("query", "value", "head")
    wide = lora.attachment_for(lora.Config(target_modules="query,key,value,intermediate.dense"))
    assert wide.sites == ("query", "key", "value", "ffn_in", "head") and wide.formula == lora.attachment.formula
    assert lora.attachment_for(lora.Config(target_modules="c_attn")).sites == ("query", "key", "value", "head")
    pfeiffer, houlsby = METHODS["pfeiffer"], METHODS["houlsby"]
    assert "layer_norm" not in pfeiffer.attachment_for(pfeiffer.default_config()).sites
    assert pfeiffer.attachment_for(pfeiffer.Config(train_layer_norms=True)).sites == ("ffn_out", "layer_norm", "head")
    assert houlsby.attachment_for(houlsby.Config(train_layer_norms=False)).sites == (
        "attention_output", "ffn_out", "head")
    full = METHODS["full"]
    assert "embeddings" not in full.attachment_for(full.Config(freeze_embeddings=True)).sites
    assert METHODS["prefix"].attachment_for(METHODS["prefix"].default_config()).sites == ("prefix", "head")
