"""The feature-based method on the sentence task: a frozen encoder whose output is a learned scalar mix of all its
hidden states (ELMo's recipe, Peters et al. 2018), pooled into the sentence vector. Only the L + 2 mixing scalars
train. Its ``forward`` answers as a bare encoder: ``last_hidden_state`` is the mix; ``hidden_states`` are the
frozen encoder's, with the last replaced by the mix (the encoder's output), so the STS table's last row is what
the run trained."""

from __future__ import annotations

import torch
from torch import nn

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.scalar_mix.module import ScalarMix

_INPUTS = ("input_ids", "attention_mask", "token_type_ids", "position_ids")


class SentenceFeatureModel(nn.Module):
    def __init__(self, encoder: nn.Module):
        super().__init__()
        config = getattr(encoder, "config", None)
        if config is None or getattr(config, "is_encoder_decoder", False):
            raise WorkbenchError(f"the feature-based method needs an encoder or a decoder, not "
                                 f"{type(encoder).__name__}")
        self.config = config
        self.base_architecture = type(encoder).__name__
        self.backbone = encoder
        self.backbone.requires_grad_(False)
        self.mix = ScalarMix(config.num_hidden_layers + 1).to(next(encoder.parameters()).device)

    def train(self, mode: bool = True) -> "SentenceFeatureModel":
        super().train(mode)
        self.backbone.eval()  # frozen features: no dropout inside the encoder
        return self

    def set_attn_implementation(self, name: str) -> None:
        self.backbone.set_attn_implementation(name)

    def forward(self, output_hidden_states: bool = False, output_attentions: bool = False, return_dict: bool = True,
                **inputs):
        from transformers.modeling_outputs import BaseModelOutput

        kwargs = {k: v for k, v in inputs.items() if k in _INPUTS and v is not None}
        with torch.no_grad():
            out = self.backbone(**kwargs, output_hidden_states=True, output_attentions=output_attentions)
        mixed = self.mix(torch.stack(out.hidden_states, dim=2))  # [B, T, H]
        hidden = (*out.hidden_states[:-1], mixed) if output_hidden_states else None
        return BaseModelOutput(last_hidden_state=mixed, hidden_states=hidden,
                               attentions=out.attentions if output_attentions else None)
