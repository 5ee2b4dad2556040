"""One direction of one ELMo layer: TensorFlow's LSTMCell with a projection and clipping.

For each step t, with x_t [B, I], h_{t-1} [B, P], c_{t-1} [B, D]::

    i, j, f, o = split([x_t; h_{t-1}] W + b, 4)      gate order of TF's kernel: i, j, f, o
    c_t = sigmoid(f) * c_{t-1} + sigmoid(i) * tanh(j) (TF adds forget_bias=1 to f at run time;
                                                       here it is folded into b, as AllenNLP does)
    c_t = clip(c_t, -cell_clip, cell_clip)
    h_t = clip((sigmoid(o) * tanh(c_t)) W_P, -proj_clip, proj_clip)   W_P: [D, P], no bias

How it runs: the x-part of the gates is one matmul over all steps; the loop does
only h W_h, for a layer's two directions in one batched matmul (``run_in_lockstep``).
Padding is at the end of each sequence. The backward direction runs over each
sequence's *valid* part reversed (TF's reverse_sequence), so a padded sentence
gives the same result as the sentence alone. Sequences are sorted longest first
and step t computes only the rows still running, as packed sequences do.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import nn


def _step(gates: torch.Tensor, c: torch.Tensor, w_p, cell_clip, proj_clip):
    """gates [K, n, 4D] (x W_x + h W_h + b), c [K, n, D] -> new (h [K, n, P], c)."""
    cell = c.shape[-1]
    sig = torch.sigmoid(gates)  # i, f, o need sigmoid; j's block of it is unused
    i, f, o = sig[..., :cell], sig[..., 2 * cell : 3 * cell], sig[..., 3 * cell :]
    c = torch.addcmul(f * c, i, torch.tanh(gates[..., cell : 2 * cell]))
    if cell_clip:
        c = c.clamp(-cell_clip, cell_clip)
    h = o * torch.tanh(c)  # [K, n, D]
    if w_p is not None:
        h = torch.bmm(h, w_p)  # [K, n, P]
    if proj_clip:
        h = h.clamp(-proj_clip, proj_clip)
    return h, c


def _step_in_place(gates: torch.Tensor, c: torch.Tensor, w_p, cell_clip, proj_clip):
    """``_step`` without autograd: the same arithmetic, overwriting gates and c."""
    cell = c.shape[-1]
    gates[..., :cell].sigmoid_()
    gates[..., cell : 2 * cell].tanh_()
    gates[..., 2 * cell :].sigmoid_()
    c.mul_(gates[..., 2 * cell : 3 * cell]).addcmul_(gates[..., :cell], gates[..., cell : 2 * cell])
    if cell_clip:
        c.clamp_(-cell_clip, cell_clip)
    h = torch.tanh(c).mul_(gates[..., 3 * cell :])
    if w_p is not None:
        h = torch.bmm(h, w_p)
    if proj_clip:
        h.clamp_(-proj_clip, proj_clip)
    return h, c


def _recurrence(
    gates_x: torch.Tensor,  # [K, T, B, 4D]: x W_x + b for K independent LSTMs, time-major
    w_h: torch.Tensor,  # [K, P, 4D]
    w_p: torch.Tensor | None,  # [K, D, P], or None (no projection: P == D)
    cell_clip: float | None,
    proj_clip: float | None,
    running: list[int],  # rows still running at each step (rows sorted longest first)
) -> torch.Tensor:
    """Run K LSTMs of the same shape in lockstep (one batched matmul per step) -> [K, B, T, P]."""
    k, steps, batch, four_d = gates_x.shape
    h = gates_x.new_zeros(k, batch, w_h.shape[1])
    c = gates_x.new_zeros(k, batch, four_d // 4)
    in_place = not torch.is_grad_enabled()
    outputs = []
    for t in range(steps):
        n = running[t]
        if n == 0:
            outputs.append(gates_x.new_zeros(k, batch, w_h.shape[1]))
            continue
        h, c = h[:, :n], c[:, :n]  # rows that ended are dropped, as in packed sequences
        if in_place:
            gates = torch.bmm(h, w_h).add_(gates_x[:, t, :n])  # [K, n, 4D]; faster than baddbmm
            h, c = _step_in_place(gates, c, w_p, cell_clip, proj_clip)
        else:
            h, c = _step(torch.bmm(h, w_h) + gates_x[:, t, :n], c, w_p, cell_clip, proj_clip)
        outputs.append(h if n == batch else F.pad(h, (0, 0, 0, batch - n)))
    return torch.stack(outputs, dim=2)  # [K, B, T, P]


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
    order = torch.argsort(lengths, descending=True, stable=True)  # longest first
    sorted_lengths = lengths[order].tolist()
    running = [sum(1 for n in sorted_lengths if n > t) for t in range(mask.shape[1])]
    x = torch.stack([x if m.go_forward else reverse_valid(x, lengths) for m, x in zip(lstms, inputs)])
    x = x[:, order]
    k, batch, steps, width = x.shape  # [K, B, T, I]
    # All steps' input part in one batched matmul, time-major so that each step's slice
    # has contiguous rows: [K, T*B, I] @ [K, I, 4D] + [K, 1, 4D] -> [K, T, B, 4D]
    gates_x = torch.baddbmm(
        torch.stack([m.bias for m in lstms]).unsqueeze(1),
        x.transpose(1, 2).reshape(k, steps * batch, width),
        torch.stack([m.input_weight for m in lstms]),
    ).view(k, steps, batch, 4 * first.cell_size)
    projections = [m.projection for m in lstms]
    out = _recurrence(
        gates_x,
        torch.stack([m.hidden_weight for m in lstms]),
        None if projections[0] is None else torch.stack(projections),
        first.cell_clip,
        first.proj_clip,
        running,
    )  # [K, B, T, P], rows in sorted order
    out = out[:, torch.argsort(order)]
    keep = mask.unsqueeze(-1)
    results = []
    for lstm, o in zip(lstms, out):  # o: [B, T, P]
        if not lstm.go_forward:
            o = reverse_valid(o, lengths)
        results.append(o * keep.to(o.dtype))
    return results
