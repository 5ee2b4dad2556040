"""Learning-rate schedule: linear warm-up, then linear, cosine or no decay.

The factor for 0-based optimizer step ``s`` (of ``total``, ``w`` warm-up steps):
``(s + 1) / w`` while ``s < w``; after that, with progress
``p = (s - w) / max(1, total - w)``: linear ``1 - p``, cosine
``(1 + cos(pi p)) / 2``, constant ``1``. The first step already learns
(factor 1/w, not 0), and the last step's factor is small but not zero.

The schedule is a pure function of the step, so its state is just the step
(JSON-able); it sets ``lr`` on each parameter group before each step,
scaled by the group's ``base_lr``.
"""

from __future__ import annotations

import math
from typing import Any

from torch.optim import Optimizer


def lr_factor(step: int, *, total: int, warmup: int, kind: str) -> float:
    """The multiplier of the peak learning rate at 0-based optimizer step ``step``."""
    if step < warmup:
        return (step + 1) / warmup
    if kind == "constant":
        return 1.0
    progress = min(1.0, (step - warmup) / max(1, total - warmup))
    if kind == "linear":
        return 1.0 - progress
    if kind == "cosine":
        return 0.5 * (1.0 + math.cos(math.pi * progress))
    raise ValueError(f"unknown schedule {kind!r}")


class WarmupSchedule:
    """Sets each group's ``lr = base_lr * lr_factor(step)``; ``state_dict()`` is JSON-able."""

    def __init__(self, optimizer: Optimizer, *, total: int, warmup: int, kind: str):
        self.optimizer = optimizer
        self.total, self.warmup, self.kind = int(total), int(warmup), kind
        for group in optimizer.param_groups:
            group.setdefault("base_lr", group["lr"])
        self.step_index = 0
        lr_factor(0, total=self.total, warmup=self.warmup, kind=kind)  # rejects an unknown kind now

    def apply(self, step: int) -> float:
        """Set the learning rates for 0-based step ``step``; returns the first group's."""
        self.step_index = int(step)
        factor = lr_factor(step, total=self.total, warmup=self.warmup, kind=self.kind)
        for group in self.optimizer.param_groups:
            group["lr"] = group["base_lr"] * factor
        return self.optimizer.param_groups[0]["lr"]

    def state_dict(self) -> dict[str, Any]:
        return {"step": self.step_index, "total": self.total, "warmup": self.warmup, "kind": self.kind}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.step_index = int(state["step"])
