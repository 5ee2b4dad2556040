"""The reference model π_ref of DPO: the model as training starts, frozen.

Two kinds, one interface (``logprobs``): a LoRA model (a ``peft`` LoRA wrapper) is its own reference with its
adapter switched off (``disable_adapter``: the frozen base weights, no second copy in memory; B starts at zero,
so at step 0 the policy and the reference are the same function); any other method's model is copied once,
after the method is applied and before the first step, and the copy is frozen. Reference log-probabilities are
computed without gradients and in eval mode, so they are the same at every step.
"""

from __future__ import annotations

import contextlib
import copy
from typing import Any

import torch
from torch import nn

from lm_workbench.engine.preference.logprobs import model_logprobs


def is_lora(model: nn.Module) -> bool:
    """A ``peft`` model whose adapters are all LoRA (its disabled adapter is exactly the base)."""
    configs = getattr(model, "peft_config", None)
    if not isinstance(configs, dict) or not configs or not hasattr(model, "disable_adapter"):
        return False
    return all(str(getattr(c, "peft_type", "")).upper().endswith("LORA") for c in configs.values())


@contextlib.contextmanager
def _evaluating(model: nn.Module):
    was = model.training
    model.eval()
    try:
        yield
    finally:
        model.train(was)


class Reference:
    """``logprobs(inputs, labels, encoder_decoder)`` -> each row's summed answer log-probability under π_ref."""

    kind = ""
    description = ""

    def logprobs(self, inputs: dict[str, torch.Tensor], labels: torch.Tensor, encoder_decoder: bool) -> torch.Tensor:
        raise NotImplementedError


class FrozenCopy(Reference):
    kind = "frozen-copy"
    description = "a frozen copy of the starting model"

    def __init__(self, model: nn.Module) -> None:
        self.model = copy.deepcopy(model).eval().requires_grad_(False)

    def logprobs(self, inputs, labels, encoder_decoder):
        device = labels.device
        if next(self.model.parameters()).device != device:
            self.model.to(device)
        with torch.no_grad():
            return model_logprobs(self.model, inputs, labels, encoder_decoder)


class DisabledAdapter(Reference):
    kind = "disabled-adapter"
    description = "the same model with its LoRA adapter disabled (no second copy)"

    def __init__(self, model: nn.Module) -> None:
        self.model = model

    def logprobs(self, inputs, labels, encoder_decoder):
        with torch.no_grad(), _evaluating(self.model), self.model.disable_adapter():
            return model_logprobs(self.model, inputs, labels, encoder_decoder)


def make_reference(prepared: nn.Module) -> Reference:
    """The reference for the model a method's ``apply`` returned (call before the first step)."""
    return DisabledAdapter(prepared) if is_lora(prepared) else FrozenCopy(prepared)


DROPOUT_ATTRIBUTES = ("dropout", "activation_dropout", "attention_dropout", "layerdrop")  # BART's, Llama's floats


def disable_dropout(model: Any) -> int:
    """Set every dropout probability to 0 (as TRL's DPO trainer does): a pair's margin is then a function of the
    weights alone, and at step 0 the policy equals the reference exactly. ``nn.Dropout`` modules (GPT-2, T5) and
    the float probabilities models pass to ``F.dropout`` (BART's ``dropout``/``activation_dropout`` and its
    attention's ``dropout``, Llama's ``attention_dropout``; BART's ``layerdrop``, which skips whole layers in
    training). The config is left as it is (a saved model keeps its own). Returns how many were set."""
    count = 0
    for module in model.modules():
        if isinstance(module, nn.Dropout) and module.p:
            module.p = 0.0
            count += 1
            continue
        for name in DROPOUT_ATTRIBUTES:
            value = getattr(module, name, None)
            if isinstance(value, float) and not isinstance(value, bool) and value:
                setattr(module, name, 0.0)
                count += 1
    return count
