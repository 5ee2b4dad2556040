"""A sentence-embedding run that does not fold into the weights (adapters, prefix, prompt tuning) opened as a model
the analysis views use: ``SentenceEncoder`` wraps the method's adapted model so that it answers like a bare
transformers encoder (``last_hidden_state``, ``hidden_states``, ``attentions`` for the real tokens only: prompt
tuning's virtual tokens and prefix tuning's extra keys are cut off), and ``loaded_encoder`` makes the
``LoadedModel`` STS, Retrieval and Compare read. Its folder is the run's output folder, whose ``finetune.json``
names the pooling the run trained (``lm_workbench.engine.sentence.model_pooling`` reads it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch
from torch import nn

from lm_workbench.engine.sentence.pooling import MODEL_INPUTS, trim_virtual


def _inner_transformer(model: nn.Module) -> Any:
    """The transformers model under a method's wrappers (peft's, or none)."""
    inner = model
    for _ in range(4):
        if hasattr(inner, "set_attn_implementation") and not hasattr(inner, "peft_config"):
            return inner
        inner = getattr(inner, "base_model", None) or getattr(inner, "model", None)
        if inner is None:
            break
    return model


class SentenceEncoder(nn.Module):
    """A method's adapted encoder answering as a bare transformers encoder for its real tokens."""

    def __init__(self, adapted: nn.Module):
        super().__init__()
        self.adapted = adapted
        self.transformer = _inner_transformer(adapted)
        self.config = self.transformer.config

    def set_attn_implementation(self, name: str) -> None:
        self.transformer.set_attn_implementation(name)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None,
                output_hidden_states: bool = False, output_attentions: bool = False, **kwargs: Any) -> Any:
        from transformers.modeling_outputs import BaseModelOutput

        inputs = {"input_ids": input_ids, "attention_mask": attention_mask, **kwargs}
        inputs = {k: v for k, v in inputs.items() if k in MODEL_INPUTS and v is not None}
        out = self.adapted(**inputs, output_hidden_states=True, output_attentions=output_attentions,
                           return_dict=True)
        length = input_ids.shape[1]
        hidden = tuple(trim_virtual(h, length) for h in out.hidden_states)
        attentions = None
        if output_attentions and out.attentions:
            attentions = tuple(a[..., a.shape[-2] - length:, a.shape[-1] - length:] for a in out.attentions)
        return BaseModelOutput(last_hidden_state=hidden[-1], hidden_states=hidden if output_hidden_states else None,
                               attentions=attentions)


def loaded_encoder(adapted: nn.Module, tokenizer: Any, folder: str | Path, spec: str, *, device: str = "auto",
                   precision: str = "float32") -> Any:
    """The ``LoadedModel`` of a run's adapted encoder (eval mode, on the chosen device)."""
    from lm_workbench.engine.models.device import choose_device
    from lm_workbench.engine.models.families import Family, detect_family, hidden_size, max_positions, num_heads, num_layers
    from lm_workbench.engine.models.loading import LoadedModel, ModelInfo

    encoder = SentenceEncoder(adapted).eval()
    choice = choose_device(device, precision)
    encoder.to(device=choice.torch_device, dtype=choice.dtype)
    config = encoder.config
    family = detect_family(config)
    parameters = sum(p.numel() for p in encoder.parameters())
    info = ModelInfo(
        spec=spec, folder=str(Path(folder).resolve()), source="folder", family=family.value,
        model_type=str(getattr(config, "model_type", "")), layers=num_layers(config), decoder_layers=None,
        heads=num_heads(config), hidden_size=hidden_size(config), parameters=parameters,
        vocab_size=int(getattr(config, "vocab_size", 0) or len(tokenizer)), has_mlm_head=False, has_lm_head=False,
        max_positions=max_positions(config, getattr(tokenizer, "model_max_length", None)), device=choice.device,
        dtype=choice.dtype_name, memory_bytes=parameters * choice.dtype.itemsize)
    if family is Family.ENCODER_DECODER:  # the sentence task refuses these; a hand-made folder could name one
        raise ValueError("a sentence encoder cannot be an encoder-decoder")
    return LoadedModel(encoder, tokenizer, config, info, choice)
