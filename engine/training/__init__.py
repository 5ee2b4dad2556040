"""The one training loop of the workbench: pre-training, fine-tuning and the scalar mix run through it.

``train(task, config, checkpoint_dir=...)`` (``lm_workbench.engine.training.loop``) is a
generator that yields ``Progress`` and metric events and returns a
``TrainingResult``; ``TrainingTask`` says what to train (any model plus extra
head modules, a batch function and a loss function); checkpoints are
safetensors plus JSON (``lm_workbench.engine.training.checkpoint``).

The names below are imported on first use (PEP 562), so a form that needs only
``TrainingConfig`` does not import torch on the GUI thread at start-up.
"""

from __future__ import annotations

import importlib
from typing import Any

_HOME = {
    "checkpoint_step": "checkpoint", "latest_checkpoint": "checkpoint", "load_checkpoint": "checkpoint",
    "load_weights": "checkpoint", "TrainingConfig": "config", "CheckpointSaved": "events", "EvalMetrics": "events",
    "StepMetrics": "events", "TrainingResult": "events", "train": "loop", "TrainingTask": "task",
}

__all__ = sorted(_HOME)


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module 'lm_workbench.engine.training' has no attribute {name!r}")
    return getattr(importlib.import_module(f"lm_workbench.engine.training.{_HOME[name]}"), name)
