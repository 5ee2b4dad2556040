"""The scalar mix itself and the probe that sits on it: torch modules, shapes in the comments."""

from __future__ import annotations

import torch
from torch import nn


class ScalarMix(nn.Module):
    """``gamma * sum_j softmax(s)_j * h_j`` over ``n_layers`` layers (ELMo, Peters et al. 2018, eq. 1).

    ``s`` starts at zero (equal weights) and ``gamma`` at one, as in AllenNLP.
    """

    def __init__(self, n_layers: int) -> None:
        super().__init__()
        if n_layers < 1:
            raise ValueError("a scalar mix needs at least one layer")
        self.scalars = nn.Parameter(torch.zeros(n_layers))  # s, before the softmax
        self.gamma = nn.Parameter(torch.ones(()))

    def weights(self) -> torch.Tensor:
        """softmax(s): [n_layers], summing to 1."""
        return torch.softmax(self.scalars, dim=0)

    def expected_layer(self) -> float:
        """``sum_j j * softmax(s)_j``: where along the layers the task's information sits (Tenney et al. 2019)."""
        w = self.weights().detach()
        return float((w * torch.arange(len(w), dtype=w.dtype, device=w.device)).sum())

    def forward(self, layers: torch.Tensor) -> torch.Tensor:
        """layers [..., n_layers, H] -> [..., H]."""
        w = self.weights().to(layers.dtype)  # [L]
        return self.gamma.to(layers.dtype) * torch.einsum("l,...lh->...h", w, layers)


class MixedLinearProbe(nn.Module):
    """A scalar mix of frozen layers, then one linear layer to the labels (the task model)."""

    def __init__(self, n_layers: int, hidden: int, n_labels: int, dropout: float = 0.0) -> None:
        super().__init__()
        self.mix = ScalarMix(n_layers)
        self.dropout = nn.Dropout(dropout)
        self.classifier = nn.Linear(hidden, n_labels)

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        """features [B, n_layers, H] -> logits [B, n_labels]."""
        return self.classifier(self.dropout(self.mix(features)))
