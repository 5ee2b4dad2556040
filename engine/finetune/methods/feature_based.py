"""The feature-based task model: a frozen encoder, a scalar mix over all its hidden states, and a task head.

ELMo's recipe (Peters et al. 2018) on a transformer: the encoder is not
changed; a learned softmax-weighted sum of the embedding output and every
layer's output (``ScalarMix``, times gamma) feeds a small head. Its
``forward(**inputs, labels=None)`` returns what the task model would
(``.loss`` and ``.logits``; for QA ``.start_logits``/``.end_logits``).
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.scalar_mix.module import ScalarMix
from lm_workbench.engine.sentence.names import FEATURE_POOLINGS, pooling_name
from lm_workbench.engine.sentence.pooling import pool

FEATURE_TASKS = ("seq-cls", "token-cls", "qa")
POOLINGS = FEATURE_POOLINGS  # the sequence head's input: cls (old name: first), mean or last (the one pooling)
_BACKBONE_INPUTS = ("input_ids", "attention_mask", "token_type_ids", "position_ids", "inputs_embeds")


class FeatureBasedModel(nn.Module):
    """``backbone`` (frozen) -> hidden states [embeddings, layer 1..L] -> ``mix`` -> dropout -> ``head``."""

    def __init__(self, task_model: nn.Module, task: str, pooling: str = "cls", dropout: float = 0.1):
        super().__init__()
        pooling = pooling_name(pooling)  # "first", the old name of "cls", is read as it
        if task not in FEATURE_TASKS:
            raise WorkbenchError(f"the feature-based method supports {', '.join(FEATURE_TASKS)}, not {task}")
        if pooling not in POOLINGS:
            raise WorkbenchError(f"pooling must be one of {', '.join(POOLINGS)}, not {pooling!r}")
        backbone = getattr(task_model, "base_model", None)
        config = getattr(task_model, "config", None)
        if backbone is None or backbone is task_model or config is None or config.is_encoder_decoder:
            raise WorkbenchError(f"the feature-based method needs an encoder or decoder task model with a "
                                 f"backbone, not {type(task_model).__name__}")
        hidden = config.hidden_size
        layers = config.num_hidden_layers + 1  # the embedding output and every layer
        self.task, self.pooling = task, pooling
        self.config = config
        self.base_architecture = type(task_model).__name__
        self.backbone = backbone
        self.backbone.requires_grad_(False)
        self.mix = ScalarMix(layers)
        self.dropout = nn.Dropout(dropout)
        outputs = 2 if task == "qa" else config.num_labels
        reference = next(backbone.parameters())
        self.head = nn.Linear(hidden, outputs).to(device=reference.device, dtype=reference.dtype)
        self.mix.to(device=reference.device)

    def train(self, mode: bool = True) -> FeatureBasedModel:
        super().train(mode)
        self.backbone.eval()  # frozen features: no dropout inside the encoder
        return self

    def _features(self, inputs: dict) -> torch.Tensor:
        """The mixed hidden states [B, T, H]."""
        kwargs = {k: v for k, v in inputs.items() if k in _BACKBONE_INPUTS and v is not None}
        with torch.no_grad():
            states = self.backbone(**kwargs, output_hidden_states=True).hidden_states
        stacked = torch.stack(states, dim=2)  # [B, T, L+1, H]
        return self.mix(stacked)

    def forward(self, labels: torch.Tensor | None = None, start_positions: torch.Tensor | None = None,
                end_positions: torch.Tensor | None = None, **inputs):
        from transformers.modeling_outputs import (  # here: importing transformers takes seconds
            QuestionAnsweringModelOutput, SequenceClassifierOutput, TokenClassifierOutput,
        )

        mixed = self.dropout(self._features(inputs))
        if self.task == "seq-cls":
            logits = self.head(pool(mixed, inputs.get("attention_mask"), self.pooling))
            loss = None
            if labels is not None:
                loss = (F.mse_loss(logits.squeeze(-1), labels.to(logits.dtype)) if logits.shape[-1] == 1
                        else F.cross_entropy(logits, labels))
            return SequenceClassifierOutput(loss=loss, logits=logits)
        logits = self.head(mixed)
        if self.task == "token-cls":
            loss = None if labels is None else F.cross_entropy(logits.flatten(0, 1), labels.flatten(),
                                                               ignore_index=-100)
            return TokenClassifierOutput(loss=loss, logits=logits)
        start, end = logits.unbind(-1)
        if labels is not None and start_positions is None:
            start_positions, end_positions = labels[:, 0], labels[:, 1]
        loss = None
        if start_positions is not None and end_positions is not None:
            ignored = start.shape[1]  # positions outside the window are ignored, as in transformers
            loss = (F.cross_entropy(start, start_positions.clamp(0, ignored), ignore_index=ignored)
                    + F.cross_entropy(end, end_positions.clamp(0, ignored), ignore_index=ignored)) / 2
        return QuestionAnsweringModelOutput(loss=loss, start_logits=start.contiguous(), end_logits=end.contiguous())
