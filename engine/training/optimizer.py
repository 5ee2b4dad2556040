"""AdamW over the trainable parameters of a model and its heads, without decay on biases and norms.

Parameters with fewer than two dimensions (biases, LayerNorm/RMSNorm
weights) get no weight decay: decaying them pulls the normalisation gains
towards zero for no regularising benefit. Shared (tied) parameters are
counted once. ``fused=True`` (one kernel for the whole update) wherever this
torch supports it for the device; else the foreach implementation.
"""

from __future__ import annotations

import functools
import inspect
from typing import Iterable

import torch
from torch import nn

from lm_workbench.engine.errors import WorkbenchError


def trainable_parameters(modules: Iterable[nn.Module]) -> list[tuple[str, nn.Parameter]]:
    """(name, parameter) of every parameter that requires a gradient, each shared one once."""
    seen: set[int] = set()
    out = []
    for index, module in enumerate(modules):
        for name, p in module.named_parameters():
            if p.requires_grad and id(p) not in seen:
                seen.add(id(p))
                out.append((f"{index}.{name}", p))
    return out


def fused_supported(device: torch.device) -> bool:
    """Whether ``AdamW(fused=True)`` runs on this device with this torch (CUDA; CPU since torch 2.4)."""
    return _fused_supported(device.type)


@functools.lru_cache(maxsize=None)
def _fused_supported(device_type: str) -> bool:
    device = torch.device(device_type)
    if "fused" not in inspect.signature(torch.optim.AdamW).parameters:
        return False
    probe = nn.Parameter(torch.zeros(1, device=device))
    probe.grad = torch.zeros(1, device=device)
    try:
        torch.optim.AdamW([probe], fused=True).step()
    except (RuntimeError, TypeError, ValueError):
        return False
    return True


def build_adamw(modules: Iterable[nn.Module], *, lr: float, weight_decay: float,
                device: torch.device) -> torch.optim.AdamW:
    """AdamW with two groups: decayed matrices, undecayed vectors (biases, norm weights)."""
    params = trainable_parameters(modules)
    if not params:
        raise WorkbenchError("nothing to train: no parameter of the model or its heads requires a gradient")
    decay = [p for _, p in params if p.ndim >= 2]
    no_decay = [p for _, p in params if p.ndim < 2]
    groups = [g for g in ({"params": decay, "weight_decay": weight_decay},
                          {"params": no_decay, "weight_decay": 0.0}) if g["params"]]
    kwargs = {"fused": True} if fused_supported(device) else {"foreach": device.type == "cuda"}
    return torch.optim.AdamW(groups, lr=lr, betas=(0.9, 0.999), eps=1e-8, **kwargs)
