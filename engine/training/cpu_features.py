"""Whether this CPU computes bf16 natively: its flags in /proc/cpuinfo (Linux).

PyTorch's CPU kernels run bf16 matrix products on AVX512-BF16 or AMX units;
without them bf16 is emulated and slower than float32 (PyTorch's own
guidance), so the loop trains in bf16 on the CPU only where one of these
flags is present and says so otherwise (``lm_workbench.engine.training.precision``).
``torch.backends.cpu.get_cpu_capability()`` names the vector unit torch
dispatches to (``AVX512``, ``AVX2``, ...), which is added to the message.
"""

from __future__ import annotations

from pathlib import Path

BF16_FLAGS = ("avx512_bf16", "amx_bf16")


def cpu_flags(cpuinfo: str | None = None) -> set[str]:
    """The flags of ``cpuinfo`` (default: /proc/cpuinfo; an empty set where it cannot be read)."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return set()
    flags: set[str] = set()
    for line in cpuinfo.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip().lower() in ("flags", "features"):
            flags.update(value.split())
    return flags


def _capability() -> str:
    try:
        import torch

        return str(torch.backends.cpu.get_cpu_capability())
    except (ImportError, AttributeError, RuntimeError):
        return "unknown"


def native_bf16(flags: set[str] | None = None) -> tuple[bool, str]:
    """(whether bf16 is native on this CPU, a sentence saying why) from its flags."""
    flags = cpu_flags() if flags is None else flags
    found = [f for f in BF16_FLAGS if f in flags]
    unit = _capability()
    if found:
        return True, f"this CPU computes bf16 natively ({', '.join(found)}; torch uses {unit})"
    if not flags:
        return False, "this CPU's flags could not be read, so bf16 is not known to be native"
    return False, (f"this CPU has no native bf16 (neither {' nor '.join(BF16_FLAGS)}; torch uses {unit}), "
                   "where bf16 runs slower than float32")


__all__ = ["BF16_FLAGS", "cpu_flags", "native_bf16"]
