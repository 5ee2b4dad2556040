"""The tuned lens's training settings: one dataclass, every field with its help text and bounds."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.setting import config_from_dict, setting



@dataclass
class TunedLensConfig:
    """How the translators are trained (the model itself stays frozen)."""

    steps: int = setting(250, "Optimizer steps.", min=1)
    batch_size: int = setting(4, "Token windows per step.", min=1)
    seq_len: int = setting(
        128, "Tokens per window: the corpus is tokenized and cut into windows of this length.", min=2)
    lr: float = setting(1e-3, "Peak learning rate of AdamW (the translators start at the identity).", min=0.0, max=1.0)
    weight_decay: float = setting(0.0, "AdamW weight decay of the translators' matrices.", min=0.0, max=1.0)
    warmup_steps: int = setting(10, "Steps over which the learning rate rises to its peak.", min=0)
    validation_windows: int = setting(8, "Windows held out to measure the KL before and after training.", min=1)
    eval_every: int = setting(
        50, "Measure the validation KL every N steps (and at the start and the end; 0: only those).", min=0)
    checkpoint_every: int = setting(0, "Save a checkpoint every N steps (0: at the end and on cancel).", min=0)
    seed: int = setting(0, "Seed of the window order and the held-out windows.", min=0)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "TunedLensConfig":
        """A config from a dict (e.g. JSON); unknown keys are a ``WorkbenchError`` naming them."""
        return config_from_dict(cls, data, "tuned-lens")

    def validate(self) -> None:
        """Raise ``WorkbenchError`` naming the first value out of bounds."""
        for f in dataclasses.fields(self):
            value, meta = getattr(self, f.name), f.metadata
            if "min" in meta and value < meta["min"]:
                raise WorkbenchError(f"tuned-lens setting {f.name} must be at least {meta['min']}, not {value}")
            if "max" in meta and value > meta["max"]:
                raise WorkbenchError(f"tuned-lens setting {f.name} must be at most {meta['max']}, not {value}")
