"""What an SAE training run is: ``SaeTrainSpec``, one JSON-able record (the run's params, the lane job's keyword
arguments, the ``lm-workbench sae train`` command line). Kept light: no torch."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.runs.spec import RunSpec

KINDS = ("standard", "topk", "jumprelu")  # lm_workbench.engine.sae.kinds.KINDS, without importing torch
FLAGS = {"kind": "--kind", "expansion": "--expansion", "sparsity": "--sparsity", "steps": "--steps",
         "batch": "--batch", "lr": "--lr", "buffer_tokens": "--buffer-tokens", "context": "--context",
         "seed": "--seed", "checkpoint_every": "--checkpoint-every"}


@dataclass
class SaeTrainSpec(RunSpec):
    """An SAE trained on ``site`` (a hook point; None: the middle block's ``hook_resid_post``) of ``model`` over
    the lines of ``corpus``, written to ``out`` (a SAELens v6 folder)."""

    model: str
    corpus: str
    out: str
    site: str | None = None
    kind: str = "topk"
    expansion: int = 8
    sparsity: float | None = None
    steps: int = 200
    batch: int = 256
    lr: float = 1e-3
    buffer_tokens: int = 4096
    context: int = 64
    seed: int = 0
    checkpoint_every: int = 100
    resume: bool = False
    name: str | None = None

    WHAT: ClassVar[str] = "SAE"
    REQUIRED: ClassVar[tuple[str, ...]] = ("model", "corpus", "out")

    def check(self) -> None:
        if self.kind not in KINDS:
            raise WorkbenchError(f"--kind must be one of {', '.join(KINDS)}, not {self.kind!r}")
        for name in ("expansion", "steps", "batch", "buffer_tokens", "context", "checkpoint_every"):
            if int(getattr(self, name)) < 1:
                raise WorkbenchError(f"--{name.replace('_', '-')} must be at least 1, not {getattr(self, name)}")
        if self.buffer_tokens < self.batch:
            raise WorkbenchError(f"--buffer-tokens ({self.buffer_tokens}) must hold at least one batch ({self.batch})")
        if not self.lr > 0:
            raise WorkbenchError(f"--lr must be positive, not {self.lr}")
        if self.sparsity is not None and self.sparsity < 0:
            raise WorkbenchError(f"--sparsity must not be negative, not {self.sparsity}")

    def config(self) -> Any:
        from lm_workbench.engine.sae.train import SaeTrainConfig

        return SaeTrainConfig(kind=self.kind, expansion=self.expansion, sparsity=self.sparsity, steps=self.steps,
                              batch=self.batch, lr=self.lr, buffer_tokens=self.buffer_tokens, context=self.context,
                              seed=self.seed, checkpoint_every=self.checkpoint_every)

    def cli_args(self) -> list[str]:
        args = ["lm-workbench", "sae", "train", self.model, "--corpus", self.corpus, "--out", self.out]
        if self.site:
            args += ["--site", self.site]
        defaults = SaeTrainSpec(model="", corpus="", out="")
        for field, flag in FLAGS.items():
            value = getattr(self, field)
            if value != getattr(defaults, field):
                args += [flag, str(value)]
        if self.resume:
            args.append("--resume")
        if self.name:
            args += ["--name", self.name]
        return args

    def title(self) -> str:
        return self.name or f"SAE {self.kind} {self.site or 'middle resid'}"
