"""Where and in what precision models run.

CUDA when present, else the CPU; a "CPU threads" setting (default: all
cores). Half precision is an option on CUDA only: bf16 where the card supports
it, fp16 otherwise.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import torch

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


@dataclass(frozen=True)
class DeviceChoice:
    device: str  # "cpu" or "cuda" / "cuda:N"
    dtype_name: str  # a key of DTYPES

    @property
    def dtype(self) -> torch.dtype:
        return DTYPES[self.dtype_name]

    @property
    def torch_device(self) -> torch.device:
        return torch.device(self.device)


def cuda_available() -> bool:
    return torch.cuda.is_available()


def choose_device(preference: str = "auto", precision: str = "auto") -> DeviceChoice:
    """Resolve a user preference into a device and dtype.

    preference: "auto" (CUDA if present), "cpu", "cuda" or "cuda:N".
    precision: "auto" (float32 on CPU, bf16 on CUDA if supported else fp16),
    "float32", "bfloat16" or "float16".
    """
    if preference == "auto":
        device = "cuda" if cuda_available() else "cpu"
    elif preference.startswith("cuda"):
        device = preference if cuda_available() else "cpu"
    else:
        device = "cpu"
    if precision == "auto":
        if device.startswith("cuda"):
            precision = "bfloat16" if torch.cuda.is_bf16_supported() else "float16"
        else:
            precision = "float32"
    if precision not in DTYPES:
        raise ValueError(f"unknown precision {precision!r}; use one of {sorted(DTYPES)}")
    if device == "cpu" and precision == "float16":
        precision = "float32"  # fp16 matmuls on CPU are slow and lossy; not offered
    return DeviceChoice(device, precision)


def default_cpu_threads() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def set_cpu_threads(n: int | None) -> int:
    """Apply the "CPU threads" setting to torch; returns the count in force."""
    n = default_cpu_threads() if not n or n < 1 else int(n)
    if torch.get_num_threads() != n:
        torch.set_num_threads(n)
    return n
