"""Mixed precision: which autocast dtype, and whether a gradient scaler is needed.

Weights and optimizer state stay float32 (master weights); autocast runs the
matmuls in half precision. bf16 has float32's exponent range, so it needs no
loss scaling; fp16 overflows/underflows gradients without a ``GradScaler``.
On CPU the default is float32 (bf16 autocast is allowed when asked for;
fp16 is not offered there). bf16 on the CPU runs only where the CPU computes
it natively (AVX512-BF16 or AMX; ``lm_workbench.engine.training.cpu_features``): elsewhere
emulated bf16 is slower than float32, so the plan falls back to fp32 and its
``note`` says why; the run reports the precision it used.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import ContextManager

import torch

from lm_workbench.engine.errors import WorkbenchError

_DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16}


@dataclass(frozen=True)
class PrecisionPlan:
    name: str  # "fp32", "bf16" or "fp16"
    device_type: str  # "cpu" or "cuda"
    note: str = ""  # why the plan differs from what was asked (bf16 on a CPU without native support)

    @property
    def autocast_dtype(self) -> torch.dtype | None:
        return _DTYPES.get(self.name)

    @property
    def uses_scaler(self) -> bool:
        return self.name == "fp16"

    def autocast(self) -> ContextManager:
        """The forward pass's context: autocast to the half dtype, or nothing for fp32."""
        if self.autocast_dtype is None:
            return contextlib.nullcontext()
        return torch.autocast(device_type=self.device_type, dtype=self.autocast_dtype)

    def make_scaler(self) -> torch.amp.GradScaler:
        """A ``GradScaler``, enabled only for fp16 (disabled, it passes everything through)."""
        return torch.amp.GradScaler(self.device_type, enabled=self.uses_scaler)


def choose_precision(requested: str, device: torch.device) -> PrecisionPlan:
    """Resolve the config's ``precision`` for ``device``; ``WorkbenchError`` for a combination that cannot run."""
    kind = device.type
    if requested == "auto":
        if kind == "cuda":
            return PrecisionPlan("bf16" if torch.cuda.is_bf16_supported() else "fp16", kind)
        return PrecisionPlan("fp32", kind)
    if requested == "fp16" and kind != "cuda":
        raise WorkbenchError("fp16 training needs a CUDA GPU; use fp32 (or bf16) on the CPU")
    if requested == "bf16" and kind == "cuda" and not torch.cuda.is_bf16_supported():
        raise WorkbenchError("this GPU does not support bf16; use precision fp16 or auto")
    if requested not in ("fp32", "bf16", "fp16"):
        raise WorkbenchError(f"unknown precision {requested!r}; use auto, fp32, bf16 or fp16")
    if requested == "bf16" and kind == "cpu":
        from lm_workbench.engine.training.cpu_features import native_bf16

        native, why = native_bf16()
        if not native:
            return PrecisionPlan("fp32", kind, note=f"bf16 was asked for, but {why}: training in fp32")
    return PrecisionPlan(requested, kind)
