"""The one pooling implementation: a sequence's token vectors to one sentence vector (torch, so training keeps the
gradient; numpy callers go through ``pool_array``).

Modes (``lm_workbench.engine.sentence.names``): ``mean``, ``cls``, ``max``, ``mean_sqrt_len``, ``last``; an alias
(``first``) is read as its name. ``model`` is not a mode: resolve it first
(``lm_workbench.engine.sentence.model_pooling.resolve_pooling``). Each mode reads only the real tokens (attention mask
1), wherever the padding lies: ``last`` is the last real token, ``cls`` the first position.

``token_states`` runs a method's adapted model and returns the last layer's token vectors for the real tokens only:
prompt tuning (peft) puts its n virtual tokens before them, and they are cut off here.
"""

from __future__ import annotations

from typing import Any

import torch

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.sentence.names import POOLING_MODES, pooling_name

MODEL_INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def pool(states: torch.Tensor, mask: torch.Tensor | None, mode: str) -> torch.Tensor:
    """[B, T, H] token vectors and a [B, T] attention mask (None: every token is real) -> [B, H], in the states'
    dtype. ``WorkbenchError`` for a name that is not a mode."""
    mode = pooling_name(mode)
    if mode not in POOLING_MODES:
        hint = "; resolve the model's own pooling first" if mode == "model" else ""
        raise WorkbenchError(f"unknown pooling {mode!r}; choose one of {', '.join(POOLING_MODES)}{hint}")
    if mask is None:
        mask = torch.ones(states.shape[:2], dtype=torch.long, device=states.device)
    if mask.shape != states.shape[:2]:
        raise WorkbenchError(f"mask shape {tuple(mask.shape)} does not match token vectors {tuple(states.shape)}")
    if mode == "cls":
        return states[:, 0]
    weights = mask.to(states.dtype).unsqueeze(-1)  # [B, T, 1]
    if mode == "max":
        return states.masked_fill(weights == 0, torch.finfo(states.dtype).min).max(1).values
    if mode == "last":
        positions = torch.arange(1, states.shape[1] + 1, device=states.device)
        last = ((mask != 0).long() * positions).argmax(1)  # the last real position (0 when none is real)
        return states[torch.arange(states.shape[0], device=states.device), last]
    total = (states * weights).sum(1)
    count = weights.sum(1).clamp(min=1e-9)
    return total / (count.sqrt() if mode == "mean_sqrt_len" else count)


def pool_array(h: Any, mask: Any = None, mode: str = "mean") -> Any:
    """numpy: [..., T, H] token vectors and a [..., T] mask -> [..., H] float32, computed in float64 (``pool``)."""
    import numpy as np

    h = np.asarray(h)
    lead, (t, width) = h.shape[:-2], h.shape[-2:]
    if mask is not None and np.shape(mask) != h.shape[:-1]:
        raise WorkbenchError(f"mask shape {np.shape(mask)} does not match token vectors {h.shape}")
    states = torch.from_numpy(np.ascontiguousarray(h, dtype=np.float64).reshape(-1, t, width))
    flat_mask = None if mask is None else torch.from_numpy(np.asarray(mask, dtype=np.int64).reshape(-1, t))
    return pool(states, flat_mask, mode).numpy().astype(np.float32).reshape(*lead, width)


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
    """[B, H]: ``model``'s last-layer token vectors for ``inputs``, pooled by ``mode``."""
    return pool(token_states(model, inputs), inputs["attention_mask"], mode)
