"""The three standard SAE architectures, as SAELens v6 names them (``architecture`` in ``cfg.json``).

Every kind encodes x [N, d_in] as ``pre = (x - b_dec) @ W_enc + b_enc`` [N, d_sae] and decodes features f
[N, d_sae] as ``f @ W_dec + b_dec`` [N, d_in]; W_enc is [d_in, d_sae], W_dec [d_sae, d_in] (one decoder direction
per row), as SAELens stores them. They differ in the activation and the sparsity term of the loss:

- ``standard`` (ReLU + L1): ``f = relu(pre)``; loss = MSE + ``l1_coefficient`` · mean_n Σ_i f_i ‖W_dec[i]‖
  (the L1 weighted by the decoder norms, so shrinking the decoder cannot cheat it; no unit-norm constraint);
- ``topk``: the k largest of ``pre`` kept, through a ReLU, the rest 0; loss = MSE (sparsity is k); decoder rows
  kept at unit norm (renormalised after each step);
- ``jumprelu``: ``f = pre · [pre > threshold]`` (threshold per feature, > 0, trained as its log through a
  straight-through estimator with a rectangle kernel of width ``bandwidth``); loss = MSE + ``l0_coefficient`` ·
  mean_n Σ_i [pre_i > threshold_i]; decoder rows kept at unit norm.

MSE here is SAELens's training MSE: Σ over d_in of the squared error, mean over the batch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn

from lm_workbench.engine.errors import WorkbenchError

KINDS = ("standard", "topk", "jumprelu")
UNIT_NORM_KINDS = ("topk", "jumprelu")
DEFAULT_SPARSITY = {"standard": 5.0, "topk": 32, "jumprelu": 1e-3}  # l1_coefficient, k, l0_coefficient
SPARSITY_NAME = {"standard": "l1_coefficient", "topk": "k", "jumprelu": "l0_coefficient"}


@dataclass
class Loss:
    """One batch's loss: ``total`` (backpropagated) = ``mse`` + ``sparsity``; ``l0`` the mean active count."""

    total: torch.Tensor
    mse: torch.Tensor
    sparsity: torch.Tensor
    l0: torch.Tensor
    fired: torch.Tensor  # [d_sae] bool: features > 0 on some row of the batch


class _Step(torch.autograd.Function):
    """[z > θ] with the straight-through gradient -(1/ε) K((z-θ)/ε) for θ (K the rectangle on [-½, ½])."""

    @staticmethod
    def forward(ctx, z, threshold, bandwidth):
        ctx.save_for_backward(z, threshold)
        ctx.bandwidth = bandwidth
        return (z > threshold).to(z.dtype)

    @staticmethod
    def backward(ctx, grad):
        z, threshold = ctx.saved_tensors
        eps = ctx.bandwidth
        kernel = ((z - threshold).abs() < eps / 2).to(z.dtype)
        return torch.zeros_like(z), (-(1.0 / eps) * kernel * grad).sum(0), None


class _JumpReLU(torch.autograd.Function):
    """z · [z > θ]; gradient z-wise [z > θ], θ-wise -(θ/ε) K((z-θ)/ε)."""

    @staticmethod
    def forward(ctx, z, threshold, bandwidth):
        ctx.save_for_backward(z, threshold)
        ctx.bandwidth = bandwidth
        return z * (z > threshold).to(z.dtype)

    @staticmethod
    def backward(ctx, grad):
        z, threshold = ctx.saved_tensors
        eps = ctx.bandwidth
        kernel = ((z - threshold).abs() < eps / 2).to(z.dtype)
        return (z > threshold).to(z.dtype) * grad, (-(threshold / eps) * kernel * grad).sum(0), None


class SparseAutoencoder(nn.Module):
    """An SAE of ``kind`` (``KINDS``) from ``d_in`` to ``d_sae`` features; ``sparsity`` is the kind's setting
    (``SPARSITY_NAME``: the L1 coefficient, k, or the L0 coefficient)."""

    def __init__(self, kind: str, d_in: int, d_sae: int, sparsity: float | None = None, *, bandwidth: float = 1e-3,
                 seed: int = 0) -> None:
        super().__init__()
        if kind not in KINDS:
            raise WorkbenchError(f"no SAE architecture {kind!r}: one of {', '.join(KINDS)}")
        if d_in < 1 or d_sae < 1:
            raise WorkbenchError(f"an SAE needs d_in and d_sae >= 1 (got {d_in}, {d_sae})")
        self.kind, self.d_in, self.d_sae, self.bandwidth = kind, int(d_in), int(d_sae), float(bandwidth)
        self.sparsity = float(DEFAULT_SPARSITY[kind] if sparsity is None else sparsity)
        if kind == "topk":
            if not 1 <= int(self.sparsity) <= d_sae:
                raise WorkbenchError(f"TopK needs 1 <= k <= d_sae ({d_sae}); got {self.sparsity:g}")
            self.sparsity = float(int(self.sparsity))
        gen = torch.Generator().manual_seed(seed)
        w_dec = torch.randn(d_sae, d_in, generator=gen)
        w_dec = w_dec / w_dec.norm(dim=1, keepdim=True) * (1.0 if kind in UNIT_NORM_KINDS else 0.1)
        self.W_dec = nn.Parameter(w_dec)
        self.W_enc = nn.Parameter(w_dec.t().clone())
        self.b_enc = nn.Parameter(torch.zeros(d_sae))
        self.b_dec = nn.Parameter(torch.zeros(d_in))
        if kind == "jumprelu":
            self.log_threshold = nn.Parameter(torch.full((d_sae,), math.log(0.001)))

    @property
    def k(self) -> int:
        return int(self.sparsity)

    @property
    def threshold(self) -> torch.Tensor:
        """JumpReLU's per-feature threshold [d_sae] (> 0)."""
        return self.log_threshold.exp()

    def pre_activation(self, x: torch.Tensor) -> torch.Tensor:
        """[N, d_in] -> [N, d_sae]: (x - b_dec) @ W_enc + b_enc."""
        return (x - self.b_dec) @ self.W_enc + self.b_enc

    def activate(self, pre: torch.Tensor) -> torch.Tensor:
        """The kind's activation of ``pre`` [N, d_sae]."""
        if self.kind == "standard":
            return torch.relu(pre)
        if self.kind == "topk":
            values, index = pre.topk(self.k, dim=-1)
            return torch.zeros_like(pre).scatter(-1, index, torch.relu(values))
        return _JumpReLU.apply(pre, self.threshold, self.bandwidth)

    def encode(self, x: torch.Tensor) -> torch.Tensor:
        """Feature activations [N, d_sae] of x [N, d_in] (any leading shape)."""
        return self.activate(self.pre_activation(x))

    def decode(self, f: torch.Tensor) -> torch.Tensor:
        """The reconstruction [N, d_in] of features f [N, d_sae]."""
        return f @ self.W_dec + self.b_dec

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.decode(self.encode(x))

    def loss(self, x: torch.Tensor) -> Loss:
        """The kind's training loss on a batch x [N, d_in] (see the module docstring)."""
        pre = self.pre_activation(x)
        f = self.activate(pre)
        mse = (self.decode(f) - x).pow(2).sum(-1).mean()
        l0 = (f > 0).float().sum(-1).mean()
        if self.kind == "standard":
            sparsity = self.sparsity * (f * self.W_dec.norm(dim=1)).sum(-1).mean()
        elif self.kind == "topk":
            sparsity = torch.zeros((), dtype=x.dtype)
        else:
            sparsity = self.sparsity * _Step.apply(pre, self.threshold, self.bandwidth).sum(-1).mean()
        return Loss(mse + sparsity, mse.detach(), sparsity.detach(), l0.detach(), (f > 0).any(0).detach())

    @torch.no_grad()
    def normalise_decoder(self) -> None:
        """Rows of W_dec back to unit norm (the kinds in ``UNIT_NORM_KINDS``; a no-op for the others)."""
        if self.kind in UNIT_NORM_KINDS:
            self.W_dec /= self.W_dec.norm(dim=1, keepdim=True).clamp_min(1e-12)

    @torch.no_grad()
    def remove_parallel_gradient(self) -> None:
        """Before a step: the part of W_dec's gradient along each row removed (unit-norm kinds), as SAELens does."""
        if self.kind in UNIT_NORM_KINDS and self.W_dec.grad is not None:
            parallel = (self.W_dec.grad * self.W_dec).sum(1, keepdim=True)
            self.W_dec.grad -= parallel * self.W_dec

    @torch.no_grad()
    def fold_scaling(self, factor: float) -> None:
        """Fold an input scaling ``x -> factor · x`` into the weights, so the SAE takes unscaled activations
        (SAELens's ``fold_activation_norm_scaling_factor``): W_enc ·= s, b_dec /= s, W_dec /= s."""
        self.W_enc *= factor
        self.b_dec /= factor
        self.W_dec /= factor
