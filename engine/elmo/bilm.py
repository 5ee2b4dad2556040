"""ELMo: a bidirectional language model over character-CNN token representations (Peters et al. 2018).

    char ids [B, T, C]  --add <S> ... </S>-->  [B, T+2, C]
      -> CharCNN                          x   [B, T+2, P]   shared by both directions
      -> forward LSTMs  1..L  (left to right over the valid tokens)     f_l [B, T+2, P]
      -> backward LSTMs 1..L  (right to left over the valid tokens)     b_l [B, T+2, P]
         with skip connections from layer 2 on: out_l = lstm_l(in_l) + in_l
    layers: [x; x], [f_1; b_1], ..., [f_L; b_L]                          each [B, T+2, 2P]
      -> remove <S>, </S>                                               each [B, T, 2P]

biLM objective: one softmax [P -> V] shared by both directions; f_L at position t
predicts word t+1, b_L at position t predicts word t-1 (the boundary words included);
full, or sampled (sampled_softmax.py) as bilm-tf trains it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from lm_workbench.engine.elmo.char_cnn import CharCNN
from lm_workbench.engine.elmo.characters import (
    add_sentence_boundaries,
    batch_to_char_ids,
    remove_sentence_boundaries,
    token_mask,
)
from lm_workbench.engine.elmo.config import ElmoConfig
from lm_workbench.engine.elmo.lstm_cell import LstmWithProjection, run_in_lockstep
from lm_workbench.engine.elmo.sampled_softmax import log_uniform_probabilities, sample_candidates, sampled_softmax_loss

IGNORE_INDEX = -100


@dataclass
class ElmoOutput:
    """Every layer of the biLM for a batch.

    layers: L+1 tensors [B, T, 2P]: 0 is the token representation [x; x], l >= 1 is [forward_l; backward_l].
    mask: [B, T] bool, True on real tokens. With boundaries kept, T counts <S> and </S>.
    forward_top, backward_top: [B, T, P], the top LSTM layer of each direction (the softmax's inputs).
    """

    layers: list[torch.Tensor]
    mask: torch.Tensor
    forward_top: torch.Tensor
    backward_top: torch.Tensor

    def stacked(self) -> torch.Tensor:
        """All layers as one [L+1, B, T, 2P] tensor."""
        return torch.stack(self.layers)


@dataclass
class BilmLoss:
    """Mean cross-entropies (nats per predicted word); ``loss`` = (forward + backward) / 2."""

    loss: torch.Tensor
    forward_loss: torch.Tensor
    backward_loss: torch.Tensor
    n_targets: int


class ElmoModel(nn.Module):
    def __init__(self, config: ElmoConfig):
        super().__init__()
        self.config = config
        self.token_encoder = CharCNN(config)
        p, d = config.projection_dim, config.lstm_dim

        def layer(go_forward: bool) -> LstmWithProjection:
            return LstmWithProjection(p, d, p, config.cell_clip, config.proj_clip, go_forward)

        self.forward_layers = nn.ModuleList(layer(True) for _ in range(config.n_layers))
        self.backward_layers = nn.ModuleList(layer(False) for _ in range(config.n_layers))
        self.softmax = nn.Linear(p, config.vocab_size) if config.vocab_size else None

    # ------------------------------------------------------------------ encoding
    def forward(self, char_ids: torch.Tensor, remove_boundaries: bool = True) -> ElmoOutput:
        """char_ids [B, T, C] (0-rows = padding tokens, no <S>/</S>) -> ElmoOutput.

        With ``remove_boundaries=False`` every tensor keeps the <S>, </S> positions ([B, T+2, ...]).
        """
        ids, mask = add_sentence_boundaries(char_ids, token_mask(char_ids))  # [B, T+2, C], [B, T+2]
        x = self.token_encoder(ids)  # [B, T+2, P]
        x = x * mask.unsqueeze(-1).to(x.dtype)
        layers = [torch.cat([x, x], dim=-1)]
        fwd, bwd = x, x
        for index, (f_lstm, b_lstm) in enumerate(zip(self.forward_layers, self.backward_layers)):
            f_out, b_out = run_in_lockstep([f_lstm, b_lstm], [fwd, bwd], mask)
            if self.config.use_skip_connections and index > 0:
                f_out, b_out = f_out + fwd, b_out + bwd
            fwd, bwd = f_out, b_out
            layers.append(torch.cat([fwd, bwd], dim=-1))
        if not remove_boundaries:
            return ElmoOutput(layers, mask, fwd, bwd)
        stripped = [remove_sentence_boundaries(layer, mask)[0] for layer in layers]
        fwd_top, new_mask = remove_sentence_boundaries(fwd, mask)
        bwd_top = remove_sentence_boundaries(bwd, mask)[0]
        return ElmoOutput(stripped, new_mask, fwd_top, bwd_top)

    def encode_tokens(self, sentences: Sequence[Sequence[str]]) -> ElmoOutput:
        """Tokenised sentences (no <S>/</S>) -> every layer, boundaries removed, no gradient."""
        ids = batch_to_char_ids(sentences, self.config.max_characters_per_token)
        device = next(self.parameters()).device
        with torch.inference_mode():
            return self.forward(ids.to(device))

    # ------------------------------------------------------------------ biLM objective
    def bilm_loss(
        self,
        char_ids: torch.Tensor,
        word_ids: torch.Tensor,
        n_samples: int = 0,
        generator: torch.Generator | None = None,
    ) -> BilmLoss:
        """Forward and backward next-word cross-entropy.

        char_ids [B, T, C] as for ``forward``; word_ids [B, T+2]: the softmax ids of
        <S>, the T tokens and </S> (aligned with the boundary positions), IGNORE_INDEX (-100)
        on padding and on any word not to be predicted. ``n_samples`` > 0: sampled softmax
        with that many log-uniform candidates per call (word ids must be sorted by decreasing
        frequency); 0: the full softmax.
        """
        if self.softmax is None:
            raise ValueError("this ELMo has no softmax (vocab_size 0); give the config a vocab_size to train it")
        out = self.forward(char_ids, remove_boundaries=False)
        if word_ids.shape != out.mask.shape:
            raise ValueError(f"word_ids must be [B, T+2] = {tuple(out.mask.shape)}, got {tuple(word_ids.shape)}")
        word_ids = word_ids.masked_fill(~out.mask, IGNORE_INDEX)
        # forward: state at t predicts word t+1; backward: state at t predicts word t-1
        fwd_targets = word_ids[:, 1:]
        # a backward state exists only at valid positions: the last word's target has none after it
        bwd_targets = word_ids[:, :-1].masked_fill(~out.mask[:, 1:], IGNORE_INDEX)
        sampled = None
        if n_samples > 0:
            proposal = log_uniform_probabilities(self.config.vocab_size).to(word_ids.device)
            sampled = sample_candidates(proposal, n_samples, generator)

        def direction_loss(states: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
            keep = targets != IGNORE_INDEX  # [B, T+1]
            h, y = states[keep], targets[keep]  # [N, P], [N]
            if sampled is None:
                return F.cross_entropy(self.softmax(h), y)
            return sampled_softmax_loss(h, y, self.softmax.weight, self.softmax.bias, *sampled)

        forward_loss = direction_loss(out.forward_top[:, :-1], fwd_targets)
        backward_loss = direction_loss(out.backward_top[:, 1:], bwd_targets)
        n_targets = int((fwd_targets != IGNORE_INDEX).sum()) + int((bwd_targets != IGNORE_INDEX).sum())
        return BilmLoss((forward_loss + backward_loss) / 2, forward_loss, backward_loss, n_targets)
