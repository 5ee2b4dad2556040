"""Patching's jobs (the Patching tab's and ``lm-workbench patch``'s): the activation-patching sweep
(``lm_workbench.engine.patching.tracing.patching_job``), one ``Partial`` per layer as it comes, and its fast
gradient approximation (``lm_workbench.engine.patching.attribution_patching``); torch is imported on the worker
thread. Each takes a ``PatchRequest`` (``lm_workbench.requests``: what the CLI and ``PatchingState.request()``
build) or, for callers of the engine's own names, a dict of ``patching_job``'s keyword arguments.
"""

from __future__ import annotations

from typing import Any

from lm_workbench.requests import PatchRequest


def engine_arguments(request: PatchRequest | dict) -> dict[str, Any]:
    """The keyword arguments of the engine's ``patching_job`` for ``request`` (the engine names the target
    ``answer`` and the contrast ``wrong``; ``--noise-samples`` is its ``samples``); a dict is taken as it is."""
    if isinstance(request, dict):
        return request
    return {"clean": request.clean, "corrupt": request.corrupt, "answer": request.target, "wrong": request.contrast,
            "site": request.site, "subject": request.subject, "noise_scale": request.noise_scale,
            "samples": request.noise_samples, "seed": request.seed, "output_position": request.output_position}


def patching_sweep(loaded: Any, request: PatchRequest | dict, cancel: Any) -> Any:
    """The exact sweep of ``request``'s site: a ``Patching`` (``Partial`` per layer as it comes)."""
    from lm_workbench.engine.patching.tracing import patching_job  # imports torch: on the worker thread

    return (yield from patching_job(loaded, cancel=cancel, **engine_arguments(request)))


def attribution_sweep(loaded: Any, request: PatchRequest | dict, cancel: Any) -> Any:
    """Attribution patching of the request's site: the approximate ``Patching`` (one forward, one backward pass)."""
    from lm_workbench.engine.patching.attribution_patching import attribution_patching_job  # imports torch: worker thread

    request = engine_arguments(request)
    site = request["site"]
    args = {k: v for k, v in request.items() if k != "site"}
    results = yield from attribution_patching_job(loaded, sites=(site,), cancel=cancel, **args)
    return results[site]
