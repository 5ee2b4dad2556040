"""Combining trained adapter tensors: exact task arithmetic (``linear``) and peft's factor-wise rules.

LoRA, ``linear`` (exact). Each run i changes a layer by ΔWᵢ = sᵢ·BᵢAᵢ (sᵢ = α/r, or α/√r with rsLoRA;
Bᵢ is out × rᵢ, Aᵢ is rᵢ × in). Stacking the factors, A' = [w₁s₁A₁; w₂s₂A₂; ...] (Σrᵢ × in) and
B' = [B₁ B₂ ...] (out × Σrᵢ), gives B'A' = Σ wᵢsᵢ·BᵢAᵢ = Σ wᵢ·ΔWᵢ exactly, for any weights (negative
ones too); the new adapter has rank R = Σrᵢ and α = R (scaling 1). This is peft's
``add_weighted_adapter(..., combination_type="cat")`` layout (the weight and scaling on A), written
here on the saved tensors because peft refuses that call when the runs' heads are ``modules_to_save``.
A run that does not adapt a layer leaves its rows and columns of that layer at zero.

LoRA, ``linear-factors``, ``ties``, ``dare``, ``dare-ties`` (peft's rules, entry by entry on the
factors, so every run needs one rank r): A' = f(Aᵢ; sign(wᵢsᵢ)·√|wᵢsᵢ|), B' = f(Bᵢ; √|wᵢsᵢ|), where f
is task arithmetic (linear-factors: Σ vᵢ·Xᵢ), TIES (keep the top ``density`` share of each Xᵢ by
magnitude, elect a sign per entry, average the agreeing entries) or DARE (drop entries at random with
probability 1 − ``density``, rescale by 1/density, then add, or TIES). The new adapter has rank r and
α = r. The product B'A' then carries the cross terms BᵢAⱼ (i ≠ j): it is not Σ wᵢ·ΔWᵢ, nor TIES or
DARE of the ΔWᵢ (peft calls the linear one "a very rough approximation"); with one run it is w·s·BA.
These are peft's own per-tensor functions (``peft.utils.merge_utils``), called in peft's order.

IA³ (the learned vectors lᵢ scale a layer's output, or its input for feed-forward layers, so
ΔWᵢ = diag(lᵢ − 1)·W or W·diag(lᵢ − 1)): ``linear`` is l' = 1 + Σ wᵢ·(lᵢ − 1), exactly Σ wᵢ·ΔWᵢ;
``linear-factors`` is peft's l' = Σ wᵢ·lᵢ, the same when the weights sum to 1 and not otherwise.

Heads (the task head peft keeps in ``modules_to_save``) and any other whole tensor: Σ wᵢ·Tᵢ, the same
weights as the adapters.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:  # torch is imported where a tensor is made, so --how's choices load light
    import torch

# --how on the command line -> peft's combination_type
PEFT_COMBINATION = {"linear": "cat", "linear-factors": "linear", "ties": "ties", "dare": "dare_linear",
                    "dare-ties": "dare_ties"}
HOWS = tuple(PEFT_COMBINATION)
FACTOR_HOWS = ("linear-factors", "ties", "dare", "dare-ties")  # entry by entry on A and B: one rank
DENSITY_HOWS = ("ties", "dare", "dare-ties")  # these read --density
SEEDED_HOWS = ("dare", "dare-ties")  # these read --seed


def combine_tensors(tensors: Sequence[torch.Tensor], weights: Sequence[float], how: str,
                    density: float) -> torch.Tensor:
    """peft's per-tensor rule for ``how`` (one of ``FACTOR_HOWS``) over same-shaped ``tensors``."""
    import torch
    from peft.utils import merge_utils

    if how not in FACTOR_HOWS:
        raise ValueError(f"{how!r} is not an entry-wise rule: one of {', '.join(FACTOR_HOWS)}")
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
    """(A', B') of one layer, entry by entry on the factors (``FACTOR_HOWS``; see the module docstring)."""
    for_a, for_b = factor_weights(weights, scalings)
    dtype = a_factors[0].dtype
    new_a = combine_tensors([a.float() for a in a_factors], for_a, how, density).to(dtype)
    new_b = combine_tensors([b.float() for b in b_factors], for_b, how, density).to(dtype)
    return new_a.contiguous(), new_b.contiguous()


def concat_lora_factors(a_factors: Sequence[torch.Tensor], b_factors: Sequence[torch.Tensor],
                        weights: Sequence[float], scalings: Sequence[float],
                        rank: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(A', B') of one layer with B'A' = Σ wᵢ·sᵢ·BᵢAᵢ exactly: A' (rank × in) stacks wᵢsᵢ·Aᵢ (rᵢ × in),
    B' (out × rank) sets Bᵢ (out × rᵢ) side by side; rows and columns past Σrᵢ are zero (``rank`` ≥ Σrᵢ,
    the merged adapter's rank, when some run does not adapt this layer). In the factors' dtype."""
    import torch

    dtype = a_factors[0].dtype
    used = sum(int(a.shape[0]) for a in a_factors)
    if used > rank:
        raise ValueError(f"the factors have {used} rows in all, more than the rank {rank}")
    new_a = torch.zeros((rank, *a_factors[0].shape[1:]), dtype=torch.float32)
    new_b = torch.zeros((b_factors[0].shape[0], rank, *b_factors[0].shape[2:]), dtype=torch.float32)
    start = 0
    for a, b, weight, scaling in zip(a_factors, b_factors, weights, scalings):
        stop = start + int(a.shape[0])
        new_a[start:stop] = float(weight) * float(scaling) * a.float()
        new_b[:, start:stop] = b.float()
        start = stop
    return new_a.to(dtype).contiguous(), new_b.to(dtype).contiguous()


def weighted_sum(tensors: Sequence[torch.Tensor], weights: Sequence[float]) -> torch.Tensor:
    """Σ wᵢ·Tᵢ (heads, IA³ vectors under linear-factors), in the tensors' dtype."""
    import torch

    total = torch.zeros_like(tensors[0], dtype=torch.float32)
    for tensor, weight in zip(tensors, weights):
        total += float(weight) * tensor.float()
    return total.to(tensors[0].dtype).contiguous()


def ia3_task_arithmetic(vectors: Sequence[torch.Tensor], weights: Sequence[float]) -> torch.Tensor:
    """1 + Σ wᵢ·(lᵢ − 1): the IA³ vector whose change to the layer is Σ wᵢ·ΔWᵢ (IA³ is linear in l)."""
    import torch

    total = torch.ones_like(vectors[0], dtype=torch.float32)
    for vector, weight in zip(vectors, weights):
        total += float(weight) * (vector.float() - 1.0)
    return total.to(vectors[0].dtype).contiguous()
