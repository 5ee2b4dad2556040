"""One direction of one ELMo layer: TensorFlow's LSTMCell with a projection and clipping.

For each step t, with x_t [B, I], h_{t-1} [B, P], c_{t-1} [B, D]::

    i, j, f, o = split([x_t; h_{t-1}] W + b, 4)      gate order of TF's kernel: i, j, f, o
    c_t = sigmoid(f) * c_{t-1} + sigmoid(i) * tanh(j) (TF adds forget_bias=1 to f at run time;
                                                       here it is folded into b, as AllenNLP does)
    c_t = clip(c_t, -cell_clip, cell_clip)
    h_t = clip((sigmoid(o) * tanh(c_t)) W_P, -proj_clip, proj_clip)   W_P: [D, P], no bias

The x-part of the gates is one matmul over all steps at once; the loop only does
h W_h, for both directions of a layer in one batched matmul. Padding is at the end of each sequence; the backward
direction runs over each sequence's *valid* part reversed (TF's reverse_sequence),
so a padded sentence gives the same result as the sentence alone.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn


def _recurrence(
    gates_x: torch.Tensor,  # [K, T, B, 4D]: x W_x + b for K independent directions, time-major
    w_h: torch.Tensor,  # [K, P, 4D]
    w_p: torch.Tensor | None,  # [K, D, P], or None (no projection: P == D)
    cell_clip: float | None,
    proj_clip: float | None,
) -> torch.Tensor:
    """Run K LSTMs of the same shape in lockstep (one batched matmul per step) -> [K, T, B, P]."""
    k, steps, batch, four_d = gates_x.shape
    cell = four_d // 4
    h = gates_x.new_zeros(k, batch, w_h.shape[1])
    c = gates_x.new_zeros(k, batch, cell)
    outputs = []
    for t in range(steps):
        gates = torch.baddbmm(gates_x[:, t], h, w_h)  # [K, B, 4D]
        sig = torch.sigmoid(gates)  # i, f, o need sigmoid; j's column block is unused
        i, f, o = sig[..., :cell], sig[..., 2 * cell : 3 * cell], sig[..., 3 * cell :]
        c = torch.addcmul(f * c, i, torch.tanh(gates[..., cell : 2 * cell]))
        if cell_clip:
            c = c.clamp(-cell_clip, cell_clip)
        h = o * torch.tanh(c)  # [K, B, D]
        if w_p is not None:
            h = torch.bmm(h, w_p)  # [K, B, P]
        if proj_clip:
            h = h.clamp(-proj_clip, proj_clip)
        outputs.append(h)
    return torch.stack(outputs, dim=1)  # [K, T, B, P]


def reverse_valid(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """Reverse each sequence's first ``lengths[b]`` steps, leave its padding in place.

    x [B, T, ...], lengths [B]. Applying it twice gives x back.
    """
    steps = x.shape[1]
    positions = torch.arange(steps, device=x.device).unsqueeze(0)  # [1, T]
    lengths = lengths.unsqueeze(1)  # [B, 1]
    index = torch.where(positions < lengths, lengths - 1 - positions, positions)  # [B, T]
    index = index.view(*index.shape, *([1] * (x.dim() - 2))).expand_as(x)
    return x.gather(1, index)


class LstmWithProjection(nn.Module):
    """One direction of one layer. Parameters keep TF's gate order (i, j, f, o) in their 4D axis.

    ``input_weight`` [I, 4D] and ``hidden_weight`` [P, 4D] are the two row blocks of TF's
    kernel W_0 [I + P, 4D]; ``bias`` [4D] is TF's B with the forget bias (1.0) added;
    ``projection`` [D, P] is W_P_0 (absent when P == D).
    """

    def __init__(
        self,
        input_size: int,
        cell_size: int,
        projection_size: int,
        cell_clip: float | None = None,
        proj_clip: float | None = None,
        go_forward: bool = True,
    ):
        super().__init__()
        self.input_size, self.cell_size, self.projection_size = input_size, cell_size, projection_size
        self.cell_clip, self.proj_clip, self.go_forward = cell_clip, proj_clip, go_forward
        self.input_weight = nn.Parameter(torch.empty(input_size, 4 * cell_size))
        self.hidden_weight = nn.Parameter(torch.empty(projection_size, 4 * cell_size))
        self.bias = nn.Parameter(torch.zeros(4 * cell_size))
        self.projection: nn.Parameter | None = None
        if projection_size != cell_size:
            self.projection = nn.Parameter(torch.empty(cell_size, projection_size))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        bound = (1.0 / self.cell_size) ** 0.5
        for weight in (self.input_weight, self.hidden_weight, self.projection):
            if weight is not None:
                nn.init.uniform_(weight, -bound, bound)
        with torch.no_grad():
            self.bias.zero_()
            self.bias[2 * self.cell_size : 3 * self.cell_size] = 1.0  # the forget bias, folded in

    def forward(self, inputs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """inputs [B, T, I], mask [B, T] (True on valid steps, padding last) -> [B, T, P], zeros on padding."""
        return run_in_lockstep([self], [inputs], mask)[0]


def run_in_lockstep(
    lstms: Sequence[LstmWithProjection], inputs: Sequence[torch.Tensor], mask: torch.Tensor
) -> list[torch.Tensor]:
    """Run same-shaped LSTMs (e.g. a layer's forward and backward direction) over their own inputs.

    inputs: one [B, T, I] per LSTM; mask [B, T]. Returns one [B, T, P] per LSTM, zeros on padding.
    The directions are independent; running them together halves the per-step overhead.
    """
    first = lstms[0]
    if any((m.cell_size, m.projection_size, m.cell_clip, m.proj_clip) !=
           (first.cell_size, first.projection_size, first.cell_clip, first.proj_clip) for m in lstms):
        raise ValueError("run_in_lockstep needs LSTMs of one shape and clipping")
    lengths = mask.sum(dim=1)
    gates_x = []
    for lstm, x in zip(lstms, inputs):
        if not lstm.go_forward:
            x = reverse_valid(x, lengths)
        # All steps' input part in one matmul: [B*T, I] @ [I, 4D] + [4D] -> [T, B, 4D]
        g = torch.addmm(lstm.bias, x.reshape(-1, lstm.input_size), lstm.input_weight)
        gates_x.append(g.view(x.shape[0], x.shape[1], -1).transpose(0, 1))
    projections = [m.projection for m in lstms]
    out = _recurrence(
        torch.stack(gates_x),
        torch.stack([m.hidden_weight for m in lstms]),
        None if projections[0] is None else torch.stack(projections),
        first.cell_clip,
        first.proj_clip,
    )  # [K, T, B, P]
    keep = mask.unsqueeze(-1)
    results = []
    for lstm, o in zip(lstms, out):
        o = o.transpose(0, 1)  # [B, T, P]
        if not lstm.go_forward:
            o = reverse_valid(o, lengths)
        results.append(o * keep.to(o.dtype))
    return results
