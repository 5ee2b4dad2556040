"""The loop's speed levers: which run, compiling the model body with a fallback, and the run's speed report.

``SpeedReport.to_dict()`` is what a run reports (``TrainingResult.speed``,
the pre-training summary's ``speed``): ``compiled``, ``chunked_loss``,
``sparse_mlm_head``, ``bf16`` (each whether it actually ran), plus
``compile_s`` (the first compiled step's extra time, kept out of tokens/s),
``fused_gelu``, ``memory_reuse``, ``page_faults_per_step`` and ``notes`` (every lever asked
for but not used, and why).

``torch.compile`` (``compile`` = auto/on/off) compiles the model's body in
place (``nn.Module.compile``: the state dict keeps its keys, so checkpoints
and saved models are unchanged); the objectives' losses stay eager. "auto"
compiles only where it pays back: on a GPU for runs of ``AUTO_MIN_STEPS_CUDA``
steps or more, on a CPU for runs of ``AUTO_MIN_STEPS_CPU`` or more and only
where a C++ compiler is found (Inductor generates C++ there). A compile that
fails (no compiler, an unsupported operation) falls back to eager for the
rest of the run, repeats the failed step eagerly from the same random state,
and says so in ``notes``. Validation always runs eagerly
(``torch.compiler.set_stance("force_eager")``), so it never triggers a
compile of its own.

``fused_gelu``: GPT-2's ``gelu_new`` (transformers' ``NewGELUActivation``,
five element-wise kernels forward and more backward) is swapped for
``F.gelu(x, approximate="tanh")``, one kernel computing the same formula
0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), for the run; the swapped
modules have no parameters, so the state dict and the saved model are the
same, and the originals are put back at the end.
"""

from __future__ import annotations

import contextlib
import shutil
from dataclasses import dataclass, field
from typing import Any, ContextManager, Iterator

import torch
import torch.nn.functional as F
from torch import nn

# On the shared 2-core VM (issue 37) compiling the tiny GPT-2's body took 63 s and saved about 6% of a step's CPU
# time (~16 ms of ~270 ms: most of a CPU step is matrix products compiling does not speed up), paying back after
# about 4,000 steps; 5,000 leaves a margin. The CUDA bound is an estimate (not measured: no GPU was lent).
AUTO_MIN_STEPS_CPU = 5_000
AUTO_MIN_STEPS_CUDA = 2_000
COMPILE_BACKEND = "inductor"  # tests swap in a failing backend to exercise the fallback


def compiler_found() -> bool:
    """Whether a C++ compiler is on PATH (Inductor needs one for CPU code)."""
    return any(shutil.which(name) for name in ("c++", "g++", "clang++", "cc"))


def decide_compile(setting: str, steps: int, device: torch.device) -> tuple[bool, str]:
    """(compile or not, why) for the config's ``compile`` setting."""
    if setting == "off":
        return False, ""
    if device.type == "cpu" and not compiler_found():
        return False, "torch.compile needs a C++ compiler on the CPU and none was found: training eagerly"
    if setting == "on":
        return True, ""
    needed = AUTO_MIN_STEPS_CUDA if device.type == "cuda" else AUTO_MIN_STEPS_CPU
    if steps < needed:
        return False, (f"torch.compile off: {steps} steps on {device.type} do not pay back its compile time "
                       f"(auto compiles from {needed:,} steps; compile=on forces it)")
    return True, ""


def body_of(model: nn.Module) -> nn.Module:
    """The part of a model to compile: its transformer body (``base_model``) where it has one, else itself."""
    body = getattr(model, "base_model", None)
    return body if isinstance(body, nn.Module) else model


def compile_in_place(module: nn.Module) -> None:
    module.compile(backend=COMPILE_BACKEND)


def uncompile(module: nn.Module) -> None:
    """Undo ``compile_in_place``: ``nn.Module.compile`` keeps the compiled call in ``_compiled_call_impl``."""
    module._compiled_call_impl = None


def eager_stance(compiled: bool) -> ContextManager:
    """A block in which compiled modules run eagerly (validation), or nothing when none is compiled."""
    if compiled and hasattr(torch.compiler, "set_stance"):
        return torch.compiler.set_stance("force_eager")
    return contextlib.nullcontext()


FUSABLE_GELU = ("NewGELUActivation", "FastGELUActivation")  # transformers' tanh-GELU written out in Python


class TanhGELU(nn.Module):
    """The tanh approximation of GELU as one kernel (the formula of GPT-2's gelu_new)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(x, approximate="tanh")


@contextlib.contextmanager
def fused_gelu(model: nn.Module, enabled: bool = True) -> Iterator[int]:
    """Inside the block, every tanh-GELU written out in Python is ``TanhGELU``; yields how many were swapped."""
    swapped: list[tuple[nn.Module, str, nn.Module]] = []
    if enabled:
        for parent in list(model.modules()):
            for name, child in list(parent.named_children()):
                if type(child).__name__ in FUSABLE_GELU:
                    setattr(parent, name, TanhGELU())
                    swapped.append((parent, name, child))
    try:
        yield len(swapped)
    finally:
        for parent, name, child in swapped:
            setattr(parent, name, child)


@dataclass
class SpeedReport:
    compiled: bool = False
    bf16: bool = False
    levers_ran: set = field(default_factory=set)  # loss-side levers that computed at least one training loss
    compile_s: float | None = None
    fused_gelu: bool = False
    memory_reuse: str = "off"
    page_faults: int = 0
    steps: int = 0
    notes: list[str] = field(default_factory=list)

    def note(self, text: str) -> None:
        if text and text not in self.notes:
            self.notes.append(text)

    def to_dict(self) -> dict[str, Any]:
        return {
            "compiled": self.compiled, "chunked_loss": "chunked_loss" in self.levers_ran,
            "sparse_mlm_head": "sparse_mlm_head" in self.levers_ran, "bf16": self.bf16,
            "compile_s": None if self.compile_s is None else round(self.compile_s, 2), "fused_gelu": self.fused_gelu,
            "memory_reuse": self.memory_reuse,
            "page_faults_per_step": round(self.page_faults / self.steps, 1) if self.steps else None,
            "notes": list(self.notes),
        }


__all__ = ["AUTO_MIN_STEPS_CPU", "AUTO_MIN_STEPS_CUDA", "SpeedReport", "TanhGELU", "body_of", "compile_in_place",
           "compiler_found", "decide_compile", "eager_stance", "fused_gelu", "uncompile"]
