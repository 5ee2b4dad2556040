"""Fit a scalar mix and a linear task model on frozen per-layer features, through the one training loop.

Features are every layer's vector of each example: a word's (token tagging)
or a sentence's pooled vector (sentence classification), ``[N, L+1, H]``,
computed once from a frozen model (any model the workbench loads, ELMo
included). Each layer is standardised with the training rows' statistics
(per-dimension mean, one standard deviation per layer) so that a layer's
learned weight reflects what it encodes, not the scale of its activations:
transformer layers differ in norm by an order of magnitude. The mix and the
classifier are trained jointly with ``lm_workbench.engine.training.train`` (AdamW, warm-up,
cancel, checkpoints); the result has the learned weights ``softmax(s)``,
``gamma``, the expected layer ``sum_j j * s_j`` and the validation accuracy.
"""

from __future__ import annotations

import dataclasses
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generator, Sequence

import numpy as np
import torch
from torch import nn

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.objectives.batching import Batch
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, Partial, Progress, relay
from lm_workbench.engine.scalar_mix.module import MixedLinearProbe
from lm_workbench.engine.setting import setting

EVAL_ROWS = 1024  # validation rows per batch



@dataclass
class ScalarMixConfig:
    """How the mix and its task model are trained (a form and the CLI are built from these fields)."""

    steps: int = setting(300, "Optimizer steps.", min=1)
    batch_size: int = setting(64, "Examples per step.", min=1)
    lr: float = setting(1e-2, "Peak learning rate (the mix and a linear layer learn fast; 1e-2 works).", min=0.0)
    weight_decay: float = setting(0.0, "AdamW weight decay of the classifier.", min=0.0)
    dropout: float = setting(0.1, "Dropout on the mixed vector before the classifier.", min=0.0, max=0.9)
    standardise: bool = setting(True, "Scale each layer to unit spread first, so weights compare content, not norms.")
    seed: int = setting(0, "Seed of the data order, the initialisation and dropout.", min=0)
    eval_every: int = setting(100, "Validate every N steps (and at the start and the end).", min=0)


@dataclass
class ScalarMixResult:
    weights: list[float]  # softmax(s), one per layer 0..L
    gamma: float
    expected_layer: float  # sum_j j * weights[j]
    accuracy: float  # on the validation rows
    validation_loss: float
    steps: int
    curve: list[tuple[int, float]] = dataclasses.field(default_factory=list)  # (step, validation accuracy)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def standardise_layers(features: np.ndarray, train_rows: np.ndarray) -> np.ndarray:
    """[N, L, H] float32: each layer minus its training mean vector, divided by its training spread."""
    train = np.asarray(features[train_rows], dtype=np.float64)  # [n, L, H]
    mean = train.mean(axis=0)  # [L, H]
    spread = np.sqrt(((train - mean) ** 2).sum(axis=2).mean(axis=0))  # [L]: RMS distance to the mean
    spread[spread == 0] = 1.0
    return ((np.asarray(features, dtype=np.float64) - mean) / spread[:, None]).astype(np.float32)


def _check(features: np.ndarray, labels: np.ndarray, train_rows: Sequence[int], valid_rows: Sequence[int]) -> None:
    if features.ndim != 3:
        raise WorkbenchError(f"features must be [examples, layers, hidden], not of shape {features.shape}")
    if len(labels) != len(features):
        raise WorkbenchError(f"{len(labels)} labels for {len(features)} examples")
    if len(train_rows) == 0 or len(valid_rows) == 0:
        raise WorkbenchError("the scalar mix needs training and validation examples (too few examples?)")


def train_scalar_mix(features: np.ndarray, labels: np.ndarray, train_rows: Sequence[int], valid_rows: Sequence[int],
                     config: ScalarMixConfig | None = None, *, n_labels: int | None = None,
                     cancel: CancelToken = NEVER_CANCELLED, checkpoint_dir: Path | None = None,
                     ) -> Generator[Any, None, ScalarMixResult]:
    """Train; yields ``Progress`` and ``Partial(weights)`` at each validation; returns a ``ScalarMixResult``.

    features [N, L+1, H]; labels [N] integer class ids (0..n_labels-1).
    """
    from lm_workbench.engine.training.config import TrainingConfig
    from lm_workbench.engine.training.events import EvalMetrics
    from lm_workbench.engine.training.loop import train

    config = config or ScalarMixConfig()
    labels = np.asarray(labels, dtype=np.int64)
    train_rows, valid_rows = np.asarray(train_rows, dtype=np.int64), np.asarray(valid_rows, dtype=np.int64)
    _check(features, labels, train_rows, valid_rows)
    x = standardise_layers(features, train_rows) if config.standardise else np.asarray(features, np.float32)
    n_labels = int(n_labels if n_labels is not None else labels.max() + 1)
    torch.manual_seed(config.seed)
    model = MixedLinearProbe(x.shape[1], x.shape[2], n_labels, config.dropout)
    x_t, y_t = torch.from_numpy(x), torch.from_numpy(labels)

    def batch_of(rows: np.ndarray) -> Batch:
        index = torch.from_numpy(rows)
        return Batch(inputs={"features": x_t[index]}, labels=y_t[index], previews=[])

    def make_batch(example_indices: list[int], rng: np.random.Generator) -> Batch:
        return batch_of(train_rows[np.asarray(example_indices, dtype=np.int64)])

    def loss(model: nn.Module, heads: dict, batch: Batch) -> tuple[torch.Tensor, dict[str, float]]:
        logits = model(batch.inputs["features"])  # [B, n_labels]
        return nn.functional.cross_entropy(logits, batch.labels), {}

    def evaluate(model: nn.Module, heads: dict, batch: Batch) -> dict[str, float]:
        logits = model(batch.inputs["features"])
        return {"accuracy": float((logits.argmax(-1) == batch.labels).float().mean())}

    valid_batches = [batch_of(valid_rows[i:i + EVAL_ROWS]) for i in range(0, len(valid_rows), EVAL_ROWS)]
    from lm_workbench.engine.training.task import TrainingTask

    task = TrainingTask(model=model, heads={}, train_size=len(train_rows), make_batch=make_batch, loss=loss,
                        validation_batches=lambda: valid_batches, evaluate=evaluate,
                        count_tokens=lambda b: len(b.labels))
    loop_config = TrainingConfig(steps=config.steps, batch_size=config.batch_size, lr=config.lr,
                                 weight_decay=config.weight_decay, warmup_steps=max(1, config.steps // 20),
                                 eval_every=config.eval_every, eval_batches=len(valid_batches),
                                 log_every=max(1, config.steps // 20), seed=config.seed, device="auto",
                                 precision="auto", schedule="linear")
    curve: list[tuple[int, float]] = []
    with tempfile.TemporaryDirectory(prefix="scalar-mix-") as tmp:
        def report(event: Any) -> Progress | Partial | None:
            if isinstance(event, EvalMetrics):
                curve.append((event.step, float(event.extra.get("accuracy", float("nan")))))
                return Partial(model.mix.weights().detach().tolist())
            return event if isinstance(event, Progress) else None

        result = yield from relay(train(task, loop_config, checkpoint_dir=Path(checkpoint_dir or tmp), cancel=cancel),
                                  report)
    last = curve[-1][1] if curve else float("nan")
    return ScalarMixResult(weights=[float(w) for w in model.mix.weights().detach()],
                           gamma=float(model.mix.gamma.detach()), expected_layer=model.mix.expected_layer(),
                           accuracy=last, validation_loss=float(result.validation_loss), steps=int(result.steps_done),
                           curve=curve)
