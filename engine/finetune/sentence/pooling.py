"""Token vectors to one sentence vector, in torch (training needs the gradient): mean over the real tokens
(special tokens included, as sentence-transformers does), the first token ([CLS]), or the element-wise maximum
over the real tokens. ``lm_workbench.engine.embeddings.sentence_embeddings`` pools the same way in numpy for analysis.

``token_states`` runs a method's adapted model and returns the last layer's token vectors for the real
tokens only: prompt tuning (peft) puts its n virtual tokens before them, and they are cut off here.
"""

from __future__ import annotations

from typing import Any

import torch

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.finetune.names import SENTENCE_TRAIN_POOLINGS

MODEL_INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def pool(states: torch.Tensor, mask: torch.Tensor, mode: str) -> torch.Tensor:
    """[B, T, H] token vectors, [B, T] attention mask -> [B, H]."""
    if mode == "cls":
        return states[:, 0]
    weights = mask.to(states.dtype).unsqueeze(-1)
    if mode == "mean":
        return (states * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
    if mode == "max":
        return states.masked_fill(weights == 0, torch.finfo(states.dtype).min).max(1).values
    raise WorkbenchError(f"unknown pooling {mode!r}; choose one of {', '.join(SENTENCE_TRAIN_POOLINGS)}")


def trim_virtual(states: torch.Tensor, length: int) -> torch.Tensor:
    """The last ``length`` positions of [B, n + T, H]: the real tokens after prompt tuning's n virtual ones."""
    return states[:, states.shape[1] - length:] if states.shape[1] > length else states


def token_states(model: Any, inputs: dict[str, torch.Tensor], hidden: bool = False) -> Any:
    """The last layer's token vectors [B, T, H] of ``model`` (a bare encoder or a method's wrapper of one); with
    ``hidden``, (last, every hidden state trimmed alike)."""
    kwargs = {k: v for k, v in inputs.items() if k in MODEL_INPUTS}
    out = model(**kwargs, output_hidden_states=hidden, return_dict=True)
    length = inputs["input_ids"].shape[1]
    last = trim_virtual(out.last_hidden_state, length)
    if not hidden:
        return last
    return last, tuple(trim_virtual(h, length) for h in out.hidden_states)


def sentence_vectors(model: Any, inputs: dict[str, torch.Tensor], mode: str) -> torch.Tensor:
    return pool(token_states(model, inputs), inputs["attention_mask"], mode)
