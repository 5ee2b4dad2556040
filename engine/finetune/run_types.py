"""What a tuning run is given and what it returns, for every task: the data, the settings, the parameters counted,
the result; and the loop's settings for a run (``training_config``: epochs as steps, an evaluation per epoch)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

from lm_workbench.engine.finetune.validation import ValidationReport
from lm_workbench.engine.training.config import TrainingConfig

CHECKPOINT_EVERY_MAX = 200  # steps between checkpoints at most (an epoch of a real data set is thousands)


@dataclass
class FineTuneData:
    """The reader's examples for ``task`` (``lm_workbench.engine.data.tasks``), already split; ``labels`` for the
    classification tasks (token classification: "O" first), empty otherwise."""

    task: str
    train: Sequence[Any]
    validation: Sequence[Any]
    labels: Sequence[str] = ()
    reads: dict[str, Any] = field(default_factory=dict)  # "train"/"validation" -> the file's ReadReport
    sentence: Any = None  # the sentence task's SentenceSetup (loss, pooling, margin; lm_workbench.engine.sentence)
    template: Any = None  # instruct: the ChatTemplate (lm_workbench.engine.instruct.template)
    notes: list[str] = field(default_factory=list)  # what the label rule did (lm_workbench.engine.data.labels)


@dataclass
class FineTuneSettings:
    epochs: float = 3.0
    batch_size: int = 16
    lr: float = 1e-3
    max_length: int = 128
    seed: int = 0
    training: dict[str, Any] = field(default_factory=dict)  # any other TrainingConfig field


@dataclass(frozen=True)
class ParametersCounted:
    """Yielded once the method is applied, before the first step: what will train."""

    trainable: int
    total: int

    @property
    def percent(self) -> float:
        return 100.0 * self.trainable / self.total if self.total else 0.0


@dataclass
class FineTuneResult:
    model: Any  # what the method's ``apply`` returned, trained
    trainable_parameters: int
    total_parameters: int
    validation: dict[str, float | None]  # the task metrics at the end (None: undefined, said in report.notes)
    best_validation: dict[str, float | None]  # each metric's best value over the evaluations (None: never defined)
    history: list[tuple[int, dict[str, float | None]]]  # (step, validation_loss + metrics) per evaluation
    report: ValidationReport  # the final predictions, rows and confusion matrix
    steps: int
    wall_s: float
    peak_memory_mb: float
    device: str
    first_loss: float
    final_loss: float
    validation_loss: float
    losses: list[float] = field(default_factory=list)
    tokens_per_s: float = 0.0  # the loop's training tokens over its training time
    tokens_seen: int = 0
    state_bytes: int = 0  # parameters + gradients + AdamW states (lm_workbench.engine.finetune.footprint)
    extra: dict[str, Any] = field(default_factory=dict)  # instruct: token counts, before/after, per category

    @property
    def trainable_percent(self) -> float:
        return 100.0 * self.trainable_parameters / self.total_parameters if self.total_parameters else 0.0


def count_parameters(model: Any) -> tuple[int, int]:
    """(trainable, total) parameters, each shared tensor once."""
    seen, trainable, total = set(), 0, 0
    for parameter in model.parameters():
        if id(parameter) in seen:
            continue
        seen.add(id(parameter))
        total += parameter.numel()
        trainable += parameter.numel() if parameter.requires_grad else 0
    return trainable, total


def training_config(settings: FineTuneSettings, train_size: int, world_size: int = 1) -> TrainingConfig:
    """The loop's settings: epochs as steps, an evaluation per epoch, 6% warm-up, linear decay.

    Under torchrun each step takes ``batch_size`` examples on each of ``world_size`` processes, so an
    epoch has ``ceil(train_size / (batch_size · world_size))`` steps. A checkpoint is written every
    epoch, and at least every ``CHECKPOINT_EVERY_MAX`` steps, so a killed run loses little.
    """
    per_epoch = max(1, math.ceil(train_size / (settings.batch_size * max(1, world_size))))
    steps = max(1, math.ceil(settings.epochs * per_epoch))
    every = min(per_epoch, CHECKPOINT_EVERY_MAX)
    values: dict[str, Any] = {
        "steps": steps, "batch_size": settings.batch_size, "lr": settings.lr, "seed": settings.seed,
        "warmup_steps": round(0.06 * steps), "eval_every": per_epoch if per_epoch < steps else 0,
        "log_every": max(1, min(10, per_epoch)), "keep_checkpoints": 1, "weight_decay": 0.01,
        "checkpoint_every": every if every < steps else 0,
    }
    values.update(settings.training)
    return TrainingConfig.from_dict(values)
