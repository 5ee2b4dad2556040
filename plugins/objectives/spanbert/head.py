"""SpanBERT's span-boundary objective (SBO) head (Joshi et al. 2020, section 3.2).

Each token x_i of a masked span (x_s, ..., x_e) is predicted from the
encoder's outputs at the two boundary tokens and a relative position
embedding: h0 = [x_{s-1}; x_{e+1}; p_{i-s+1}], h1 = LayerNorm(GeLU(W1 h0)),
y_i = LayerNorm(GeLU(W2 h1)), and the vocabulary scores are y_i times the
input embedding matrix (tied, as in SpanBERT's code) plus a bias.
"""

from __future__ import annotations

import torch
from torch import nn

MAX_SPAN_POSITIONS = 64  # relative positions beyond this share the last embedding


class SpanBoundaryHead(nn.Module):
    def __init__(self, hidden_size: int, vocab_size: int, layer_norm_eps: float = 1e-12,
                 max_positions: int = MAX_SPAN_POSITIONS):
        super().__init__()
        self.max_positions = max_positions
        self.position_embeddings = nn.Embedding(max_positions, hidden_size)
        self.linear1 = nn.Linear(3 * hidden_size, hidden_size)
        self.norm1 = nn.LayerNorm(hidden_size, eps=layer_norm_eps)
        self.linear2 = nn.Linear(hidden_size, hidden_size)
        self.norm2 = nn.LayerNorm(hidden_size, eps=layer_norm_eps)
        self.act = nn.GELU()
        self.bias = nn.Parameter(torch.zeros(vocab_size))

    def forward(self, hidden: torch.Tensor, batch_index: torch.Tensor, left: torch.Tensor, right: torch.Tensor,
                relative: torch.Tensor) -> torch.Tensor:
        """y_i for every span token: ``hidden`` is (batch, length, H); the index tensors are (N,)."""
        x_left = hidden[batch_index, left]
        x_right = hidden[batch_index, right]
        p = self.position_embeddings(relative.clamp(max=self.max_positions - 1))
        h0 = torch.cat([x_left, x_right, p.to(hidden.dtype)], dim=-1)
        h1 = self.norm1(self.act(self.linear1(h0)))
        return self.norm2(self.act(self.linear2(h1)))

    def vocabulary_logits(self, y: torch.Tensor, embedding_weight: torch.Tensor) -> torch.Tensor:
        """Scores over the vocabulary with the (tied) input embeddings."""
        return y @ embedding_weight.t() + self.bias[: embedding_weight.shape[0]]
