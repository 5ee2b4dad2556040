"""Validation: the token-weighted mean loss over the task's validation batches, perplexity, extra metrics.

Each batch's loss (a mean over its labelled positions) is weighted by
``task.eval_weight(batch)``, by default its number of labelled positions
(labels != -100), so the result is the mean loss per scored token, not a
mean of batch means. For causal LM the shift scores one position fewer per
row than are labelled, so there the weighting is per token up to that one
position per row. ``task.evaluate`` metrics are averaged with the same
weights. Under torchrun the batches are split across ranks and the sums
all-reduced. The modules are in eval mode (no dropout) during validation and
back in their previous mode afterwards; no RNG is consumed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch
from torch import nn

from lm_workbench.engine.training.distributed import DistributedContext
from lm_workbench.engine.training.precision import PrecisionPlan
from lm_workbench.engine.training.task import TrainingTask


@dataclass
class Evaluation:
    loss: float  # NaN when the task has no validation batches
    perplexity: float
    extra: dict = field(default_factory=dict)


def perplexity_of(loss: float) -> float:
    """exp(loss), inf on overflow, NaN for NaN."""
    try:
        return math.exp(loss)
    except OverflowError:
        return float("inf")


def validate(task: TrainingTask, modules: nn.Module, plan: PrecisionPlan, ctx: DistributedContext,
             device: torch.device) -> Evaluation:
    """Evaluate ``task.model``/``task.heads`` (``modules`` holds both, to switch their modes together)."""
    was_training = modules.training
    modules.eval()
    loss_sum = weight_sum = 0.0
    extra_sums: dict[str, float] = {}
    try:
        with torch.no_grad():
            for index, batch in enumerate(task.validation_batches()):
                if index % ctx.world_size != ctx.rank:
                    continue
                batch = batch.to(device)
                weight = float(task.eval_weight(batch))
                with plan.autocast():
                    loss, _ = task.loss(task.model, task.heads, batch)
                    metrics = task.evaluate(task.model, task.heads, batch) if task.evaluate else {}
                loss_sum += weight * float(loss)
                weight_sum += weight
                for key, value in metrics.items():
                    extra_sums[key] = extra_sums.get(key, 0.0) + weight * float(value)
    finally:
        modules.train(was_training)
    keys = sorted(set().union(*ctx.gather_json(sorted(extra_sums))))
    totals = ctx.all_reduce_sum([loss_sum, weight_sum] + [extra_sums.get(k, 0.0) for k in keys])
    loss_sum, weight_sum = totals[0], totals[1]
    if weight_sum <= 0:
        return Evaluation(float("nan"), float("nan"), {})
    loss = loss_sum / weight_sum
    return Evaluation(loss, perplexity_of(loss), {k: v / weight_sum for k, v in zip(keys, totals[2:])})
