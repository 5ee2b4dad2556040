"""What the training loop reports: step metrics, evaluations, checkpoints, and the final result.

The loop yields these (``StepsPlanned`` first; besides ``lm_workbench.engine.progress.Progress`` every step) so the
UI, the CLI and the tests consume the same stream. Under torchrun only rank 0
yields the metric and checkpoint events; every rank yields ``Progress``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class StepsPlanned:
    """Once, before the first step (a resumed run: before its next one): the optimizer steps the run takes in
    all (``total``) and those already done (``done``), so a front end can say "step k of n" from the start."""

    total: int
    done: int = 0


@dataclass(frozen=True)
class StepMetrics:
    """Every ``log_every`` steps. ``loss`` is this step's loss (mean over micro-batches and ranks);
    ``grad_norm`` the global norm before clipping; ``tokens_per_s`` over the steps since the last report."""

    step: int
    loss: float
    lr: float
    grad_norm: float
    tokens_per_s: float
    tokens_seen: int
    elapsed_s: float
    extra: dict = field(default_factory=dict)


@dataclass(frozen=True)
class EvalMetrics:
    """At step 0, every ``eval_every`` steps and at the end. ``validation_loss`` is token-weighted
    (see ``lm_workbench.engine.training.evaluation``); ``extra`` holds the task's ``evaluate`` metrics."""

    step: int
    validation_loss: float
    perplexity: float
    extra: dict = field(default_factory=dict)


@dataclass(frozen=True)
class CheckpointSaved:
    step: int
    path: Path


@dataclass
class TrainingResult:
    """The generator's return value. ``losses`` has every optimizer step's loss, resumed steps included
    (a resumed run carries the earlier ones over from its checkpoint)."""

    first_loss: float
    final_loss: float
    validation_loss: float
    tokens_per_s: float
    steps_done: int
    checkpoint: Path | None
    cancelled: bool
    losses: list[float] = field(default_factory=list)
    perplexity: float = float("nan")
    tokens_seen: int = 0
    elapsed_s: float = 0.0
    eval_extra: dict = field(default_factory=dict)
    device: str = ""  # where it trained, e.g. "cpu" or "cuda:0"
    precision: str = ""  # the number format of the steps, e.g. "fp32" or "bf16"
    speed: dict = field(default_factory=dict)  # the levers that ran (lm_workbench.engine.training.speed.SpeedReport.to_dict)
