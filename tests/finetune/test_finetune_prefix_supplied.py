"""Prefix tuning with the prefix handed over by the workbench (``supply_prefix``), on any transformers release.

Checked against a BERT written out by hand with the prefix's keys and values concatenated before the tokens'
(``tests/support/prefix_reference``), against peft's closed-form parameter count, on a folder that plain peft
saved (a run from before this change), and, where peft's own hand-over still runs (transformers < 5.24),
against it bit for bit.
"""

from __future__ import annotations

import inspect

import peft
import pytest
import torch
from safetensors.torch import load_file

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.finetune.methods.prefix_cache import SuppliedPrefix, cache_argument
from lm_workbench.engine.plugin_api import count_parameters
from tests.support.finetune_method_models import HIDDEN, LABELS, LAYERS, task_batch, task_model, train_a_little
from tests.support.prefix_reference import bert_prefix_logits
from lm_workbench.finetune.methods import finetune_methods
from lm_workbench.settings import Settings

torch.set_num_threads(1)
PREFIX = finetune_methods(Settings())["prefix"]
N = 4
HEAD = HIDDEN * LABELS + LABELS  # BERT's classifier; its pooler stays frozen


def _plain_peft(model):
    """What prefix runs were before: peft's model, prefix handed over by peft."""
    config = peft.PrefixTuningConfig(task_type="SEQ_CLS", num_virtual_tokens=N, prefix_projection=False,
                                     modules_to_save=["classifier"])
    return peft.get_peft_model(model, config)


def _moved(model):
    with torch.no_grad():  # a prefix far from its start, so that it matters
        model.prompt_encoder["default"].embedding.weight.normal_(0, 2.0)
    return model.eval()


def test_the_supplied_prefix_equals_keys_and_values_concatenated_by_hand():
    model = _moved(PREFIX.apply(task_model("bert", "seq-cls"), PREFIX.Config(num_virtual_tokens=N,
                                                                              prefix_projection=False), "seq-cls"))
    assert isinstance(model, SuppliedPrefix) and isinstance(model, peft.PeftModel)
    inputs, _ = task_batch("seq-cls", pad=3)
    with torch.no_grad():
        got = model(**inputs).logits
        prefix = model.prompt_encoder["default"].embedding.weight
        want = bert_prefix_logits(model.base_model, prefix, inputs["input_ids"], inputs["attention_mask"])
        without = model.base_model(**inputs).logits
    assert torch.allclose(got, want, atol=1e-5), (got - want).abs().max()
    assert (got - without).abs().max() > 1e-2  # the prefix is what made the difference


def test_the_trainable_count_is_peft_s_closed_form_and_peft_s_own():
    model = PREFIX.apply(task_model("bert", "seq-cls"), PREFIX.Config(num_virtual_tokens=N, prefix_projection=False),
                         "seq-cls")
    trainable, _total = model.get_nb_trainable_parameters()
    assert count_parameters(model).trainable == trainable == N * 2 * LAYERS * HIDDEN + HEAD


def test_a_folder_plain_peft_saved_opens_and_predicts_as_peft_did(tmp_path):
    plain = _moved(_plain_peft(task_model("bert", "seq-cls", head_seed=1)))
    plain.save_pretrained(str(tmp_path / "old-run"))
    inputs, _ = task_batch("seq-cls", seed=3)
    reloaded = PREFIX.load(task_model("bert", "seq-cls", head_seed=2), tmp_path / "old-run")
    saved = load_file(str(tmp_path / "old-run" / "adapter_model.safetensors"))
    prefix = next(value for key, value in saved.items() if "prompt_embeddings" in key)
    with torch.no_grad():
        got = reloaded(**inputs).logits
        want = bert_prefix_logits(reloaded.base_model, prefix, inputs["input_ids"], inputs["attention_mask"])
    assert torch.allclose(got, want, atol=1e-5), (got - want).abs().max()
    try:  # peft's own hand-over, where this release still lets it run: bit for bit the same
        with torch.no_grad():
            peft_logits = plain(**inputs).logits
    except ValueError as error:
        assert "past key values" in str(error)  # transformers >= 5.24 renamed the argument: peft refuses
    else:
        with torch.no_grad():
            assert torch.equal(reloaded(**inputs).logits, peft_logits)


def test_trained_saved_and_reloaded_the_predictions_are_bit_identical(tmp_path):
    config = PREFIX.Config(num_virtual_tokens=N, prefix_projection=True, encoder_hidden_size=16)
    for kind, task in (("bert", "qa"), ("gpt2", "token-cls")):
        tuned = train_a_little(PREFIX.apply(task_model(kind, task, head_seed=1), config, task), task)
        PREFIX.save(tuned, tmp_path / kind)
        reloaded = PREFIX.load(task_model(kind, task, head_seed=2), tmp_path / kind)
        inputs, _ = task_batch(task, seed=5)
        with torch.no_grad():
            a, b = tuned(**inputs), reloaded(**inputs)
        for key in ("start_logits", "end_logits") if task == "qa" else ("logits",):
            assert torch.equal(getattr(a, key), getattr(b, key))


def test_the_cache_argument_is_the_name_the_model_declares_and_an_encoder_decoder_classifier_is_refused():
    bert = task_model("bert", "seq-cls")
    assert cache_argument(bert) in ("cache", "past_key_values")  # the backbone's, whichever this release uses
    gpt2 = task_model("gpt2", "seq-cls")
    assert cache_argument(gpt2) in inspect.signature(gpt2.forward).parameters
    with pytest.raises(WorkbenchError, match="sequence-to-sequence task only"):
        PREFIX.apply(task_model("bart", "seq-cls"), PREFIX.default_config(), "seq-cls")
