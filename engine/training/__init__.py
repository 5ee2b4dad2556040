"""The one training loop of the workbench: pre-training, and later fine-tuning and probing, run through it.

``train(task, config, checkpoint_dir=...)`` (``engine.training.loop``) is a
generator that yields ``Progress`` and metric events and returns a
``TrainingResult``; ``TrainingTask`` says what to train (any model plus extra
head modules, a batch function and a loss function); checkpoints are
safetensors plus JSON (``engine.training.checkpoint``).
"""

from engine.training.checkpoint import checkpoint_step, latest_checkpoint, load_checkpoint, load_weights
from engine.training.config import TrainingConfig
from engine.training.events import CheckpointSaved, EvalMetrics, StepMetrics, TrainingResult
from engine.training.loop import train
from engine.training.task import TrainingTask

__all__ = ["CheckpointSaved", "EvalMetrics", "StepMetrics", "TrainingConfig", "TrainingResult", "TrainingTask",
           "checkpoint_step", "latest_checkpoint", "load_checkpoint", "load_weights", "train"]
