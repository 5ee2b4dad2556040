"""What to train: a model, extra head modules, a batch function and a loss function.

The loop knows nothing of objectives, fine-tuning or probing: pre-training
builds a ``TrainingTask`` from an objective plugin, a fine-tuning or probing
job from its own head and loss. Only parameters with ``requires_grad`` are
optimized, so a frozen base model (probing, PEFT) needs nothing special.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable

import numpy as np
import torch
from torch import nn

from lm_workbench.engine.objectives.batching import Batch
from lm_workbench.engine.objectives.preview import IGNORE_INDEX


def attention_mask_tokens(batch: Batch) -> int:
    """Real (non-padding) input tokens: the attention mask's sum, or every input id without a mask."""
    mask = batch.inputs.get("attention_mask")
    if mask is not None:
        return int(mask.sum())
    ids = batch.inputs.get("input_ids")
    return int(ids.numel()) if ids is not None else len(batch)


def labelled_positions(batch: Batch) -> float:
    """How many positions a batch's loss averages over: labels other than -100 (at least 1)."""
    return float(max(1, int((batch.labels != IGNORE_INDEX).sum())))


@dataclass
class TrainingTask:
    """Everything the loop needs from the caller.

    ``make_batch(example_indices, rng)`` builds a training ``Batch`` from the
    data set's examples, with all its randomness (masking, noise) from ``rng``,
    the loop's checkpointed numpy generator. ``loss(model, heads, batch)``
    returns the scalar loss tensor and metrics to log; it must move the batch
    to the model's device itself or accept it there (the loop moves it first).
    ``validation_batches()`` returns the same batches every call.
    ``eval_weight`` weights each validation batch's loss in the mean
    (default: its labelled positions, so the mean is per token).
    """

    model: nn.Module
    heads: dict[str, nn.Module]
    train_size: int
    make_batch: Callable[[list[int], np.random.Generator], Batch]
    loss: Callable[[nn.Module, dict, Batch], tuple[torch.Tensor, dict[str, float]]]
    validation_batches: Callable[[], Iterable[Batch]]
    evaluate: Callable[[nn.Module, dict, Batch], dict[str, float]] | None = None
    count_tokens: Callable[[Batch], int] = attention_mask_tokens
    eval_weight: Callable[[Batch], float] = field(default=labelled_positions)
