"""The training loop's settings: one dataclass a form (and the CLI) can be generated from.

Every field carries ``metadata={"help": ..., "min"/"max"/"choices": ...}`` in
the same shape as an objective's ``Config`` (``lm_workbench.engine.objectives.config_fields``),
so the training view builds its form the same way. ``threads`` is the one
optional field (None: leave torch's thread count alone), which is why this
module has its own ``training_config_fields`` instead of reusing
``config_fields`` (that one allows only bool/int/float/str).

Batch semantics: ``batch_size`` is examples per micro-batch per process; one
optimizer step sees ``batch_size * grad_accum * world_size`` examples.
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass
from typing import Any

from lm_workbench.engine.objectives.config_fields import KINDS, ConfigField, check_field_value
from lm_workbench.engine.setting import config_from_dict, setting

SCHEDULES = ("linear", "cosine", "constant")
PRECISIONS = ("auto", "fp32", "bf16", "fp16")
DEVICES = ("auto", "cpu", "cuda")
COMPILE_CHOICES = ("auto", "on", "off")



@dataclass
class TrainingConfig:
    """How long, how fast and how carefully to train; see the module docstring for batch semantics."""

    steps: int = setting(300, "Optimizer steps to run in total.", min=1)
    batch_size: int = setting(16, "Examples per micro-batch (per process under torchrun).", min=1)
    grad_accum: int = setting(
        1, "Micro-batches whose gradients are summed before each optimizer step (a larger effective batch without "
        "more memory).", min=1)
    lr: float = setting(5e-4, "Peak learning rate of AdamW, reached at the end of warm-up.", min=0.0, max=10.0)
    weight_decay: float = setting(
        0.01, "AdamW decoupled weight decay; never applied to biases or LayerNorm weights.", min=0.0, max=1.0)
    warmup_steps: int = setting(30, "Steps over which the learning rate rises linearly to its peak.", min=0)
    schedule: str = setting(
        "linear", "Learning-rate decay after warm-up: linear to 0, cosine to 0, or constant.", choices=SCHEDULES)
    max_grad_norm: float = setting(1.0, "Clip the global gradient norm to this value (0: no clipping).", min=0.0)
    eval_every: int = setting(100, "Validate every N steps (also at step 0 and at the end; 0: only those).", min=0)
    eval_batches: int = setting(10, "Validation batches per evaluation (read by the task that builds them).", min=1)
    checkpoint_every: int = setting(0, "Save a checkpoint every N steps (0: only at the end and on cancel).", min=0)
    keep_checkpoints: int = setting(2, "How many of the newest checkpoints to keep on disk.", min=1)
    log_every: int = setting(10, "Report loss, learning rate, gradient norm and tokens/s every N steps.", min=1)
    seed: int = setting(0, "Seed of the data order, the corruption (masking) and dropout.", min=0)
    precision: str = setting(
        "auto", "Number format: auto (bf16 on CUDA where supported, else fp16 with a gradient scaler; fp32 on CPU), "
        "fp32, bf16 (on a CPU only where it computes bf16 natively, AVX512-BF16 or AMX; fp32 elsewhere, and the run "
        "says so) or fp16 (CUDA only).", choices=PRECISIONS)
    device: str = setting("auto", "Where to train: auto (CUDA if present), cpu or cuda.", choices=DEVICES)
    threads: int | None = setting(
        None, "CPU threads for torch, process-wide (empty: the cores other processes leave free, at most "
        "OMP_NUM_THREADS).", min=1)
    compile: str = setting(
        "auto", "torch.compile the model's body: auto (only for runs long enough to pay back the compile time, and "
        "where a compiler is found), on or off. A failed compile falls back to eager and says so.",
        choices=COMPILE_CHOICES)
    chunked_loss: bool = setting(
        True, "Compute a causal LM's vocabulary head and loss in chunks of rows (the same loss, less memory traffic; "
        "GPT-2-style models).")
    sparse_mlm_head: bool = setting(
        True, "Run a masked LM's vocabulary head only at the masked positions (the same loss; BERT- and RoBERTa-style "
        "models).")
    fused_gelu: bool = setting(
        True, "Run GPT-2's gelu_new activation as one fused kernel (the same tanh formula, equal within float "
        "rounding).")
    reuse_memory: bool = setting(
        True, "Keep freed memory in this process for the next step instead of returning it to the system and "
        "page-faulting it back (glibc; restored after the run).")

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "TrainingConfig":
        """A config from a dict (e.g. JSON); unknown keys are a ``WorkbenchError`` naming them."""
        return config_from_dict(cls, data, "training")

    def validate(self) -> None:
        """Raise ``WorkbenchError`` naming the first bad field."""
        for spec in training_config_fields():
            check_field_value(spec, getattr(self, spec.name), "training")


def training_config_fields() -> list[ConfigField]:
    """The fields of ``TrainingConfig`` as a form shows them (``threads``: kind "int", default None)."""
    hints = typing.get_type_hints(TrainingConfig)
    out = []
    for f in dataclasses.fields(TrainingConfig):
        kind_type = hints[f.name]
        args = [a for a in typing.get_args(kind_type) if a is not type(None)]
        kind = KINDS[args[0] if args else kind_type]
        meta = f.metadata
        choices = meta.get("choices")
        out.append(ConfigField(name=f.name, kind=kind, default=f.default, help=meta["help"], min=meta.get("min"),
                               max=meta.get("max"), choices=tuple(choices) if choices else None))
    return out
