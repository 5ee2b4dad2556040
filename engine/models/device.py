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


def _env_threads() -> int | None:
    try:
        value = int(os.environ.get("OMP_NUM_THREADS", ""))
    except ValueError:
        return None
    return value if value > 0 else None


def busy_cores(seconds: float = 0.1) -> float | None:
    """How many cores other processes keep busy: the machine's non-idle CPU time over ``seconds`` (from
    ``/proc/stat``; this process waits meanwhile) divided by the time; None where ``/proc/stat`` is absent."""
    import time

    def sample() -> tuple[int, int] | None:
        try:
            with open("/proc/stat", encoding="ascii") as handle:
                fields = [int(x) for x in handle.readline().split()[1:]]
        except (OSError, ValueError):
            return None
        idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
        return sum(fields[:8]), idle

    first = sample()
    if first is None:
        return None
    time.sleep(seconds)
    second = sample()
    if second is None or second[0] <= first[0]:
        return None
    busy_share = 1.0 - (second[1] - first[1]) / (second[0] - first[0])
    return max(0.0, busy_share) * default_cpu_threads()


def free_cpu_threads(limit: int | None = None, busy: float | None = None) -> int:
    """Threads for a run that shares the machine: the cores other processes leave free (``busy_cores``,
    rounded to the nearest core), at least 1 and at most ``limit`` (default: ``OMP_NUM_THREADS`` when set,
    else every core). More threads than free cores make each step wait for the slowest thread, which
    the other processes hold back: on 2 cores beside one busy process, 2 threads ran a step slower than 1."""
    cap = int(limit) if limit else _env_threads() or default_cpu_threads()
    if busy is None:
        busy = busy_cores()
    if busy is None:
        return max(1, cap)
    return max(1, min(cap, default_cpu_threads() - int(busy + 0.5)))


def set_cpu_threads(n: int | None) -> int:
    """Apply the "CPU threads" setting to torch; returns the count in force."""
    n = default_cpu_threads() if not n or n < 1 else int(n)
    if torch.get_num_threads() != n:
        torch.set_num_threads(n)
    return n
