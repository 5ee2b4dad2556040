"""The Patching tab's jobs: the activation-patching sweep (``lm_workbench.engine.patching.tracing.patching_job``), one
``Partial`` per layer as it comes, and its fast gradient approximation (``lm_workbench.engine.patching.attribution_patching``);
torch is imported on the worker thread."""

from __future__ import annotations

from typing import Any


def patching_sweep(loaded: Any, request: dict, cancel: Any) -> Any:
    from lm_workbench.engine.patching.tracing import patching_job  # imports torch: on the worker thread

    return (yield from patching_job(loaded, cancel=cancel, **request))


def attribution_sweep(loaded: Any, request: dict, cancel: Any) -> Any:
    """Attribution patching of the request's site: the approximate ``Patching`` (one forward, one backward pass)."""
    from lm_workbench.engine.patching.attribution_patching import attribution_patching_job  # imports torch: worker thread

    site = request["site"]
    args = {k: v for k, v in request.items() if k != "site"}
    results = yield from attribution_patching_job(loaded, sites=(site,), cancel=cancel, **args)
    return results[site]
