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

Two shortcuts, both exact: each distinct token of a batch is encoded once (a batch
repeats words, <S>, </S> and padding rows), and the character axis is cut to the
longest token's characters plus the widest filter. Past that point every window
lies in padding characters and gives the same value as a window the cut keeps, so
no max changes.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from lm_workbench.engine.elmo.characters import PADDING_CHAR
from lm_workbench.engine.elmo.config import ElmoConfig

PADDING_CHAR_ID = PADDING_CHAR + 1  # ids are shifted by +1; 0 is a padding token's row


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
        rows = self._cut_characters(char_ids.reshape(-1, max_chars))  # [B*T, C']
        unique, inverse = torch.unique(rows, dim=0, return_inverse=True)  # [U, C'], [B*T]
        return self._encode(unique)[inverse].reshape(batch, steps, self.config.projection_dim)

    def _cut_characters(self, rows: torch.Tensor) -> torch.Tensor:
        """[N, C] -> [N, C']: keep the longest token's characters plus the widest filter (exact, see above)."""
        if rows.shape[0] == 0:
            return rows
        real = (rows != 0) & (rows != PADDING_CHAR_ID)  # markers and bytes: a prefix of each row
        keep = int(real.sum(dim=1).max()) + max(w for w, _ in self.config.filters)
        return rows[:, : min(rows.shape[1], keep)]

    def _encode(self, rows: torch.Tensor) -> torch.Tensor:
        """[N, C'] ids -> [N, P]."""
        if rows.shape[0] == 0:
            return self.char_embedding.weight.new_zeros(0, self.config.projection_dim)
        # [N, C', E] -> [N, E, C']: Conv1d wants channels (the embedding) before length.
        embedded = self.char_embedding(rows).transpose(1, 2)
        pooled = []
        for conv in self.convolutions:
            convolved = conv(embedded)  # [N, n_k, C' - w_k + 1]
            pooled.append(self._activation(convolved.max(dim=-1).values))  # [N, n_k]
        x = torch.cat(pooled, dim=-1)  # [N, F]
        for highway in self.highways:
            x = highway(x)
        return self.projection(x)  # [N, P]
