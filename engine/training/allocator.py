"""Keep freed memory for the next training step instead of handing it back and page-faulting it in again.

glibc's ``malloc`` serves every block of 32 MB or more (a step's logits, its
activation gradients) with a fresh ``mmap`` and returns it with ``munmap`` on
free, so each step maps, page-faults and zero-fills the same large blocks again
(on a 2-core VM: 55-65k page faults and 120-145 ms of kernel time per step of
the tiny GPT-2). The mmap threshold cannot be raised past 32 MB (glibc refuses
larger values), so ``reuse_freed_memory`` turns mmap off for the process
(``M_MMAP_MAX = 0``: every block comes from the heap) and stops the heap being
trimmed (``M_TRIM_THRESHOLD``): freed blocks stay mapped and the next step
reuses them without a page fault. This is the same as starting the process
with ``MALLOC_MMAP_MAX_=0 MALLOC_TRIM_THRESHOLD_=<large>``; the loop applies it
to its own process for the run only and restores glibc's defaults afterwards
(then ``malloc_trim(0)`` returns what the heap kept). The cost: the process's
resident memory stays at its peak during the run.

Linux with glibc only; elsewhere it does nothing and says so.
``page_faults()`` (``resource.getrusage``) measures the effect per step.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import resource
import sys
from typing import Iterator

M_TRIM_THRESHOLD, M_MMAP_MAX = -1, -4  # mallopt parameters (glibc's malloc.h)
DEFAULT_TRIM_THRESHOLD, DEFAULT_MMAP_MAX = 128 * 1024, 65536  # glibc's defaults
KEEP_TRIM_THRESHOLD = 2**31 - 1  # largest int: never trim


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt  # noqa: B018 (glibc has it; musl does not)
        libc.malloc_trim  # noqa: B018
    except (OSError, AttributeError):
        return None
    return libc


def page_faults() -> int:
    """Page faults of this process so far (minor + major)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return int(usage.ru_minflt + usage.ru_majflt)


@contextlib.contextmanager
def reuse_freed_memory(enabled: bool = True) -> Iterator[str]:
    """Inside the block, freed memory stays in the process (see the module docstring); yields what was done."""
    libc = _libc() if enabled else None
    if not enabled:
        yield "off"
        return
    if libc is None:
        yield "not available (needs Linux with glibc)"
        return
    ok = libc.mallopt(M_MMAP_MAX, 0) == 1 and libc.mallopt(M_TRIM_THRESHOLD, KEEP_TRIM_THRESHOLD) == 1
    try:
        yield "on" if ok else "refused by the C library"
    finally:
        libc.mallopt(M_MMAP_MAX, DEFAULT_MMAP_MAX)
        libc.mallopt(M_TRIM_THRESHOLD, DEFAULT_TRIM_THRESHOLD)
        libc.malloc_trim(0)


__all__ = ["page_faults", "reuse_freed_memory"]
