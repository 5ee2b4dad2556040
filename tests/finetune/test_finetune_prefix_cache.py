"""Prefix tuning through peft's key/value cache on transformers 5: the prefix is attended, padding is not.

peft hands the prefix to BERT as a ``DynamicCache`` and widens the attention
mask by n; a mask or cache mix-up would show as padding changing the logits
or the prefix changing nothing.
"""

from __future__ import annotations

import pytest
import torch

from tests.support.finetune_method_models import LENGTH, outputs_of, task_batch, task_model
from lm_workbench.finetune.methods import finetune_methods
from lm_workbench.settings import Settings

torch.set_num_threads(1)
PREFIX = finetune_methods(Settings())["prefix"]


def _prefixed(kind: str, task: str):
    model = PREFIX.apply(task_model(kind, task), PREFIX.Config(num_virtual_tokens=4, prefix_projection=False), task)
    with torch.no_grad():  # a prefix far from its start, so that it matters
        model.prompt_encoder["default"].embedding.weight.normal_(0, 2.0)
    return model.eval()


@pytest.mark.parametrize("kind, task", [("bert", "seq-cls"), ("bert", "token-cls"), ("bart", "seq2seq")])
def test_the_prefix_changes_what_the_model_predicts(kind, task):
    model = _prefixed(kind, task)
    inputs, _ = task_batch(task)
    before = outputs_of(model, task, inputs)[0]
    with torch.no_grad():
        model.prompt_encoder["default"].embedding.weight.mul_(-1.0)
    assert (outputs_of(model, task, inputs)[0] - before).abs().max() > 1e-3


def test_padding_after_a_sentence_does_not_change_its_prefixed_logits():
    model = _prefixed("bert", "seq-cls")
    inputs, _ = task_batch("seq-cls", pad=3)
    short = {"input_ids": inputs["input_ids"][:1, :LENGTH - 3], "attention_mask": inputs["attention_mask"][:1, :LENGTH - 3]}
    padded = {key: value[:1] for key, value in inputs.items()}
    with torch.no_grad():
        padded["input_ids"][:, LENGTH - 3:] = 0  # the pad id, under a zero mask
    assert torch.allclose(outputs_of(model, "seq-cls", short)[0], outputs_of(model, "seq-cls", padded)[0], atol=1e-6)
