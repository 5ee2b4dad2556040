"""One bottleneck adapter, x + U(f(D(x))), and the wrapper that applies it after a submodule's output."""

from __future__ import annotations

import torch
from torch import nn

_ACTIVATIONS = {"relu": nn.ReLU, "gelu": nn.GELU, "tanh": nn.Tanh, "swish": nn.SiLU}


class BottleneckAdapter(nn.Module):
    """Down-project d -> m, a non-linearity, up-project m -> d, plus the skip connection.

    The up-projection starts at N(0, init_scale) (zeros when 0) with a zero
    bias, so the adapter starts at (or near) the identity.
    """

    def __init__(self, hidden: int, bottleneck: int, non_linearity: str, init_scale: float):
        super().__init__()
        self.down = nn.Linear(hidden, bottleneck)
        self.activation = _ACTIVATIONS[non_linearity]()
        self.up = nn.Linear(bottleneck, hidden)
        with torch.no_grad():
            nn.init.zeros_(self.down.bias)
            nn.init.zeros_(self.up.bias)
            if init_scale > 0:
                nn.init.normal_(self.up.weight, std=init_scale)
            else:
                nn.init.zeros_(self.up.weight)

    def delta(self, x: torch.Tensor) -> torch.Tensor:
        """U(f(D(x))): what the adapter adds to its skip connection."""
        return self.up(self.activation(self.down(x)))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.delta(x)


class WithAdapter(nn.Module):
    """``base_layer`` followed by ``adapter``: replaces the dropout that ends a sublayer's output path.

    Wrapping that dropout (which has no weights) puts the adapter after the
    output projection and its dropout and before the residual add, and leaves
    every base parameter's name unchanged, so base checkpoints still load.
    """

    def __init__(self, base_layer: nn.Module, adapter: BottleneckAdapter):
        super().__init__()
        self.base_layer = base_layer
        self.adapter = adapter

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.adapter(self.base_layer(x))


class NormWithAdapter(nn.Module):
    """Pfeiffer's adapter on a post-LN sublayer, in place of its LayerNorm ``base_layer``.

    With z = f + x (the sublayer output f plus the residual x, this norm's
    input), Pfeiffer et al. compute h = LN(z), a = U(ReLU(D(h))) + f and the
    output LN(a + x), the same LayerNorm twice; a + x = z + U(ReLU(D(h))), so
    that is LN(z + U(ReLU(D(LN(z))))).
    """

    def __init__(self, base_layer: nn.Module, adapter: BottleneckAdapter):
        super().__init__()
        self.base_layer = base_layer
        self.adapter = adapter

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        return self.base_layer(z + self.adapter.delta(self.base_layer(z)))


def adapt_block_output(adapter: BottleneckAdapter, block: nn.Module, args, output):
    """Forward hook for a pre-LN block (GPT-2): its output z = x + f becomes z + U(ReLU(D(z))) (Pfeiffer).

    A pre-LN block has no LayerNorm after the residual add, so the adapter
    reads and adds to the residual stream itself.
    """
    if isinstance(output, tuple):
        return (output[0] + adapter.delta(output[0]),) + output[1:]
    return output + adapter.delta(output)
