"""Prefix tuning's keys and values handed to the model by the workbench, whatever a release calls the cache.

peft builds the prefix (its ``PrefixEncoder``: n trained vectors, or their reparameterisation MLP, reshaped to
a key and a value per layer) and, for the classification, token-classification and question-answering heads,
passes it to the model as ``past_key_values`` only after checking that name in the forward's signature.
transformers 5.24 renamed that argument ``cache`` (the old name still accepted until 5.40), so the check
refuses ("Model does not support past key values which are required for prefix tuning") although the model
takes the prefix as well as ever.

Here the peft model keeps everything of peft's but that hand-over: ``supply_prefix`` gives it a forward that
asks peft for the prefilled cache (``get_prompt``, the same tensors, so the same trainable parameters and the
same saved folder) and passes it under the name the task model or its backbone declares (``cache`` or
``past_key_values``), with the attention mask peft already widened by n. peft's own path for those heads
called the task model in the same way (or its backbone, then the same pooling, dropout and head), so a run
saved before predicts bit for bit as it did. The causal-LM and seq2seq-LM heads hand the prefix over inside
peft's ``forward`` without the check; their ``generate`` gets ``GeneratedPrefix`` (with transformers >= 5.24
peft's generation put the prefix where the model no longer looked: greedy answers came from the model without
its prefix). An encoder-decoder's
classification heads are refused in one line (peft widens the mask the encoder reads while the prefix reaches
only the decoder: that never ran, with any release).
"""

from __future__ import annotations

import inspect
from functools import cache

from torch import nn

from lm_workbench.engine.errors import WorkbenchError

CACHE_ARGUMENTS = ("cache", "past_key_values")  # the name transformers >= 5.24 uses first, then the old one
HOW_IT_ATTACHES = ("peft's PrefixEncoder makes the n keys and values of every layer; the workbench hands them "
                   "to the model as a prefilled key/value cache (under the name the model's forward declares), "
                   "and the attention mask grows by n ones")


def cache_argument(task_model: nn.Module) -> str:
    """The name under which ``task_model`` (or the backbone it passes its keyword arguments to) takes a cache."""
    backbone = getattr(task_model, getattr(task_model, "base_model_prefix", ""), None)
    for module in (task_model, backbone):
        if module is None:
            continue
        parameters = inspect.signature(module.forward).parameters
        for name in CACHE_ARGUMENTS:
            if name in parameters:
                return name
    raise WorkbenchError(f"prefix tuning needs a model that takes a key/value cache; {type(task_model).__name__} "
                         f"declares none of {', '.join(CACHE_ARGUMENTS)}")


class SuppliedPrefix:
    """Mixed in before a peft model's class: its prefix reaches the model through ``cache_argument``."""

    def _prefix_tuning_forward(self, input_ids=None, inputs_embeds=None, **kwargs):
        """Called by peft's forward with the attention mask already widened by the prefix's n positions."""
        rows = (input_ids if input_ids is not None else inputs_embeds).shape[0]
        task_model = self.base_model  # prompt learning wraps the task model itself
        kwargs[cache_argument(task_model)] = self.get_prompt(batch_size=rows)
        return task_model(input_ids=input_ids, inputs_embeds=inputs_embeds, **kwargs)


@cache
def _supplied_class(peft_class: type) -> type:
    return type(f"Supplied{peft_class.__name__}", (SuppliedPrefix, peft_class), {"__module__": __name__})


class GeneratedPrefix:
    """Mixed in before peft's causal-LM or seq2seq-LM class: ``generate`` keeps the prefix.

    peft's ``prepare_inputs_for_generation`` puts the prefix under ``past_key_values`` at the first step (and
    tells the first step by that key); transformers >= 5.24 keeps generation's own cache under ``cache``, which
    the model takes first, so the prefix was dropped while generating (the trained model's forward kept it).
    Here peft sees the cache under the old name, and its answer goes back under the name the model declares.
    """

    def prepare_inputs_for_generation(self, *args, **kwargs):
        base = self.base_model_prepare_inputs_for_generation

        def old_name(*a, **k):
            prepared = base(*a, **k)
            if "cache" in prepared:
                found = prepared.pop("cache")
                if prepared.get("past_key_values") is None:
                    prepared["past_key_values"] = found
            return prepared

        self.base_model_prepare_inputs_for_generation = old_name
        try:
            prepared = super().prepare_inputs_for_generation(*args, **kwargs)
        finally:
            self.base_model_prepare_inputs_for_generation = base
        if "past_key_values" in prepared and cache_argument(self.base_model) == "cache":
            prepared["cache"] = prepared.pop("past_key_values")
        return prepared


@cache
def _generated_class(peft_class: type) -> type:
    return type(f"Generated{peft_class.__name__}", (GeneratedPrefix, peft_class), {"__module__": __name__})


def supply_prefix(model: nn.Module) -> nn.Module:
    """``model`` (a ``peft.PeftModel`` made by prefix tuning) with the workbench handing its prefix over, where
    peft would check the cache argument's name (classification, token classification, question answering), and
    ``generate`` keeping it (causal and seq2seq language models); other models are returned as they are. Changes ``model`` in place (its class) and returns it."""
    peft_class = type(model)
    if isinstance(model, (SuppliedPrefix, GeneratedPrefix)) or not hasattr(peft_class, "active_peft_config"):
        return model
    peft_type = getattr(model.active_peft_config, "peft_type", None)
    if getattr(peft_type, "value", peft_type) != "PREFIX_TUNING":
        return model
    if not hasattr(peft_class, "_prefix_tuning_forward"):  # a language-model head: peft's forward, our generate
        if hasattr(peft_class, "prepare_inputs_for_generation"):
            model.__class__ = _generated_class(peft_class)
        return model
    task_model = model.base_model
    if getattr(task_model.config, "is_encoder_decoder", False):
        # peft widens the attention mask that the encoder reads while the prefix reaches only the decoder's cache
        raise WorkbenchError(f"prefix tuning cannot adapt {type(task_model).__name__}: for an encoder-decoder it "
                             "covers the sequence-to-sequence task only; use LoRA, adapters or BitFit here")
    cache_argument(task_model)  # refuse now, before training, a model that takes no cache
    model.__class__ = _supplied_class(peft_class)
    return model
