"""ELMo's context-independent token representation: a character CNN (Kim et al. 2016).

    char ids [N, C]  -> embedding      [N, C, E]
                     -> conv1d_k       [N, n_k, C - w_k + 1]   one per (width w_k, count n_k)
                     -> max over chars [N, n_k] -> activation (relu or tanh)
                     -> concat         [N, F]                  F = sum n_k
                     -> highway x H    [N, F]
                     -> projection     [N, P]                  (none when F == P)

Highway, in bilm-tf's convention (its names: the "carry" gate weighs the
*transformed* value)::

    g = sigmoid(x W_carry + b_carry)
    y = g * relu(x W_transform + b_transform) + (1 - g) * x

The highway non-linearity is always relu, whatever the CNN's activation.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from engine.elmo.config import ElmoConfig


class HighwayLayer(nn.Module):
    """One highway layer; ``carry`` and ``transform`` are [F -> F] linears (names as in weights.hdf5)."""

    def __init__(self, width: int):
        super().__init__()
        self.carry = nn.Linear(width, width)
        self.transform = nn.Linear(width, width)
        # bilm-tf's initialisation: the gate starts mostly closed, so x passes through.
        nn.init.constant_(self.carry.bias, -2.0)
        nn.init.zeros_(self.transform.bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # [N, F] -> [N, F]
        gate = torch.sigmoid(self.carry(x))
        return gate * F.relu(self.transform(x)) + (1.0 - gate) * x


class CharCNN(nn.Module):
    """Character ids [B, T, C] -> token representations [B, T, projection_dim]."""

    def __init__(self, config: ElmoConfig):
        super().__init__()
        self.config = config
        # Row 0 is the padding id: zero, and it gets no gradient.
        self.char_embedding = nn.Embedding(config.n_characters, config.char_embedding_dim, padding_idx=0)
        nn.init.uniform_(self.char_embedding.weight, -1.0, 1.0)
        with torch.no_grad():
            self.char_embedding.weight[0].zero_()
        self.convolutions = nn.ModuleList(
            nn.Conv1d(config.char_embedding_dim, count, kernel_size=width) for width, count in config.filters
        )
        for conv in self.convolutions:
            nn.init.uniform_(conv.weight, -0.05, 0.05)  # Kim et al.'s init, as bilm-tf for relu
            nn.init.zeros_(conv.bias)
        self.highways = nn.ModuleList(HighwayLayer(config.n_filters) for _ in range(config.n_highway))
        self.projection: nn.Module
        if config.n_filters != config.projection_dim:
            self.projection = nn.Linear(config.n_filters, config.projection_dim)
        else:
            self.projection = nn.Identity()  # bilm-tf has no CNN_proj in this case
        self._activation = torch.tanh if config.activation == "tanh" else F.relu

    def forward(self, char_ids: torch.Tensor) -> torch.Tensor:
        batch, steps, max_chars = char_ids.shape
        # [B*T, C, E] -> [B*T, E, C]: Conv1d wants channels (the embedding) before length.
        embedded = self.char_embedding(char_ids.reshape(-1, max_chars)).transpose(1, 2)
        pooled = []
        for conv in self.convolutions:
            convolved = conv(embedded)  # [B*T, n_k, C - w_k + 1]
            pooled.append(self._activation(convolved.max(dim=-1).values))  # [B*T, n_k]
        x = torch.cat(pooled, dim=-1)  # [B*T, F]
        for highway in self.highways:
            x = highway(x)
        x = self.projection(x)  # [B*T, P]
        return x.reshape(batch, steps, -1)
