"""The Patching tab's job: the activation-patching sweep (``engine.patching.tracing.patching_steps``), one
``Partial`` per layer as it comes; torch is imported on the worker thread."""

from __future__ import annotations

from typing import Any


def patching_sweep(loaded: Any, request: dict, cancel: Any) -> Any:
    from engine.patching.tracing import patching_steps  # imports torch: on the worker thread

    return (yield from patching_steps(loaded, cancel=cancel, **request))
