"""The Patching tab's job: the activation-patching sweep (``engine.patching.tracing.patching_job``), one
``Partial`` per layer as it comes; torch is imported on the worker thread."""

from __future__ import annotations

from typing import Any


def patching_sweep(loaded: Any, request: dict, cancel: Any) -> Any:
    from engine.patching.tracing import patching_job  # imports torch: on the worker thread

    return (yield from patching_job(loaded, cancel=cancel, **request))
