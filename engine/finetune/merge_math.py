"""Combining trained adapter tensors the way peft's ``add_weighted_adapter`` does (linear, TIES, DARE).

LoRA. peft combines the factors, not the products: for each adapted layer, with source i's weight wᵢ
and scaling sᵢ (α/r, or α/√r for rsLoRA), A' = f(Aᵢ; sign(wᵢsᵢ)·√|wᵢsᵢ|) and B' = f(Bᵢ; √|wᵢsᵢ|), where
f is task arithmetic (linear: Σ vᵢ·Xᵢ), TIES (keep the top ``density`` share of each Xᵢ by magnitude,
elect a sign per entry, average the agreeing entries) or DARE (drop entries at random with probability
1 − ``density``, rescale by 1/density, then linear or TIES). The new adapter has rank r and α = r
(scaling 1). For linear this gives B'A' = (Σ √(wᵢsᵢ)Bᵢ)(Σ √(wᵢsᵢ)Aᵢ), which has the cross terms
BᵢAⱼ: it is NOT Σ wᵢ·ΔWᵢ (peft calls it "a very rough approximation"); with one source it is w·s·BA.
These are peft's own per-tensor functions (``peft.utils.merge_utils``), called in peft's order.

IA³. peft's rule is linear only: l' = Σ wᵢ·lᵢ (the learned scaling vectors).

Heads (the task head peft keeps in ``modules_to_save``) and any other whole tensor: Σ wᵢ·Tᵢ, the same
weights as the adapters.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:  # torch is imported where a tensor is made, so --how's choices load light
    import torch

# --how on the command line -> peft's combination_type
PEFT_COMBINATION = {"linear": "linear", "ties": "ties", "dare": "dare_linear", "dare-ties": "dare_ties"}
HOWS = tuple(PEFT_COMBINATION)


def combine_tensors(tensors: Sequence[torch.Tensor], weights: Sequence[float], how: str,
                    density: float) -> torch.Tensor:
    """peft's per-tensor rule ``how`` (``HOWS``) over ``tensors`` with per-tensor ``weights``."""
    import torch
    from peft.utils import merge_utils

    stacked_weights = torch.tensor([float(w) for w in weights], dtype=tensors[0].dtype)
    kind = PEFT_COMBINATION[how]
    if kind == "linear":
        return merge_utils.task_arithmetic(list(tensors), stacked_weights)
    if kind == "ties":
        return merge_utils.ties(list(tensors), stacked_weights, density, "total")
    if kind == "dare_linear":
        return merge_utils.dare_linear(list(tensors), stacked_weights, density)
    return merge_utils.dare_ties(list(tensors), stacked_weights, density, "total")


def factor_weights(weights: Sequence[float], scalings: Sequence[float]) -> tuple[list[float], list[float]]:
    """peft's split of each source's weight × scaling over the two factors: (for A, for B)."""
    for_a, for_b = [], []
    for weight, scaling in zip(weights, scalings):
        scaled = float(weight) * float(scaling)
        root = math.sqrt(abs(scaled))
        for_a.append(root if scaled >= 0 else -root)  # the sign goes on one factor only
        for_b.append(root)
    return for_a, for_b


def combine_lora_factors(a_factors: Sequence[torch.Tensor], b_factors: Sequence[torch.Tensor],
                         weights: Sequence[float], scalings: Sequence[float], how: str,
                         density: float) -> tuple[torch.Tensor, torch.Tensor]:
    """(A', B') of one layer from the sources that adapt it (see the module docstring)."""
    for_a, for_b = factor_weights(weights, scalings)
    dtype = a_factors[0].dtype
    new_a = combine_tensors([a.float() for a in a_factors], for_a, how, density).to(dtype)
    new_b = combine_tensors([b.float() for b in b_factors], for_b, how, density).to(dtype)
    return new_a.contiguous(), new_b.contiguous()


def weighted_sum(tensors: Sequence[torch.Tensor], weights: Sequence[float]) -> torch.Tensor:
    """Σ wᵢ·Tᵢ (heads, IA³ vectors), in the tensors' dtype."""
    import torch

    total = torch.zeros_like(tensors[0], dtype=torch.float32)
    for tensor, weight in zip(tensors, weights):
        total += float(weight) * tensor.float()
    return total.to(tensors[0].dtype).contiguous()
