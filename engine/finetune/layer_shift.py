"""Which layers fine-tuning moved: per layer, linear CKA and mean cosine between base and tuned states.

Both models read the same texts; every non-padding token's hidden state at
each layer (0 = the embeddings) is one row. Linear CKA (Kornblith et al.
2019; ``lm_workbench.engine.maths.similarity``) compares the two layers' representations
as a whole, invariant to rotations and isotropic scaling: 1 means the layer
did not change its geometry. The mean cosine compares each token's two
vectors directly. Prompt tuning prepends virtual tokens: the tuned model's
extra leading positions are dropped so tokens line up.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import torch

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.maths.similarity import linear_cka, mean_cosine


@dataclass(frozen=True)
class LayerShift:
    layer: int  # 0 = embeddings
    cka: float
    mean_cosine: float


def _hidden_states(output: Any) -> tuple[torch.Tensor, ...]:
    states = getattr(output, "hidden_states", None) or getattr(output, "encoder_hidden_states", None)
    if not states:
        raise WorkbenchError("the model returned no hidden states to compare")
    return tuple(states)


@torch.no_grad()
def token_states(model: Any, tokenizer: Any, texts: Sequence[str], max_length: int = 128,
                 batch_size: int = 16) -> list[np.ndarray]:
    """Per layer, the hidden states of every non-padding token of ``texts`` (rows in text order)."""
    model.eval()
    device = next(model.parameters()).device
    per_layer: list[list[np.ndarray]] = []
    for start in range(0, len(texts), batch_size):
        batch = tokenizer(list(texts[start:start + batch_size]), padding=True, truncation=True,
                          max_length=max_length, return_tensors="pt")
        mask = batch["attention_mask"].bool()
        inputs = {k: v.to(device) for k, v in batch.items() if k in ("input_ids", "attention_mask", "token_type_ids")}
        states = _hidden_states(model(**inputs, output_hidden_states=True))
        if not per_layer:
            per_layer = [[] for _ in states]
        if len(states) != len(per_layer):
            raise WorkbenchError("the model's number of layers changed between batches")
        length = mask.shape[1]
        for layer, state in enumerate(states):
            state = state[:, -length:, :].float().cpu()  # drop prepended virtual tokens (prompt tuning)
            per_layer[layer].append(state[mask].numpy())
    return [np.concatenate(parts) for parts in per_layer]


def layer_shift(base: Any, tuned: Any, tokenizer: Any, texts: Sequence[str], max_length: int = 128,
                cancel: Any = None) -> list[LayerShift]:
    """Per layer, linear CKA and mean cosine between ``base``'s and ``tuned``'s states on ``texts``."""
    texts = [t for t in texts if t.strip()]
    if not texts:
        raise WorkbenchError("layer shift needs at least one text")
    before = token_states(base, tokenizer, texts, max_length)
    if cancel is not None:
        cancel.check()
    after = token_states(tuned, tokenizer, texts, max_length)
    if len(before) != len(after):
        raise WorkbenchError(f"the base model has {len(before) - 1} layers and the tuned one {len(after) - 1}: "
                             "not the same base")
    return [LayerShift(i, linear_cka(x, y), mean_cosine(x, y)) for i, (x, y) in enumerate(zip(before, after))]
