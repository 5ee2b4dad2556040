"""Gradient × input by hand: a hook on a word-embedding module keeps its output and that output's gradient
while the model runs from its ids (the reference the attribution tests compare against)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import torch


def hooked_grad_input(model: Any, module: Any, run: Callable[[Any], torch.Tensor]) -> np.ndarray:
    """Σ_d e_d ∂f/∂e_d at the first output of ``module`` while ``run(model)`` returns the scalar f."""
    kept = []

    def keep(_module, _inputs, output):
        if not kept:  # T5 shares the module with its decoder: the encoder calls it first
            if not output.requires_grad:  # frozen embeddings (LoRA): a leaf of the same values
                output = output.detach().requires_grad_(True)
            output.retain_grad()
            kept.append(output)
            return output

    handle = module.register_forward_hook(keep)
    try:
        with torch.enable_grad():
            run(model).backward()
    finally:
        handle.remove()
        model.zero_grad(set_to_none=True)
    e = kept[0]
    return (e * e.grad).sum(-1)[0].detach().double().numpy()
