"""Trainable and total parameter counts of a model (shared tensors counted once)."""

from __future__ import annotations

from dataclasses import dataclass

from torch import nn


@dataclass(frozen=True)
class ParameterCount:
    trainable: int
    total: int

    @property
    def percent(self) -> float:
        """Trainable parameters as a percentage of all parameters."""
        return 100.0 * self.trainable / self.total if self.total else 0.0


def count_parameters(model: nn.Module) -> ParameterCount:
    """Count ``model``'s parameters; ``model.parameters()`` already yields a tied tensor once."""
    trainable = total = 0
    for parameter in model.parameters():
        total += parameter.numel()
        if parameter.requires_grad:
            trainable += parameter.numel()
    return ParameterCount(trainable=trainable, total=total)
