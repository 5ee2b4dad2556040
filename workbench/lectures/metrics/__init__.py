"""The metrics lecture claims read, per view id: what each view's computed result offers (no Qt; cheap to import).

``REGISTRY`` maps a view id to its ``ViewMetrics`` (one module per view: ``embeddings``, ``masking``,
``attention``, ``predictions``, ``patching``, ``heads``, ``probing``, ``retrieval``, ``finetune``, ``features``).
Each metric computes its step the way the view does, through the same workbench and engine functions (the heavy imports
happen inside them). ``check_metric`` is what the preset schema asks about a claim's metric; ``metric_value``
reads one metric of a computed ``StepRun``. The Guide's exercises and the studies' steps use the same registry.
"""

from __future__ import annotations

from typing import Any

from lm_workbench.lectures.metrics import (
    attention, embeddings, features, finetune, heads, masking, patching, predictions, probing, retrieval,
)
from lm_workbench.lectures.metrics.base import Metric, StepRun, ViewMetrics

REGISTRY: dict[str, ViewMetrics] = {m.view: m for m in (
    embeddings.METRICS, masking.METRICS, attention.METRICS, predictions.METRICS, patching.METRICS, heads.METRICS,
    probing.METRICS, retrieval.METRICS, finetune.METRICS, features.METRICS)}

__all__ = ["REGISTRY", "Metric", "StepRun", "ViewMetrics", "check_metric", "metric_value", "view_metrics"]


def view_metrics(view: str) -> ViewMetrics | None:
    return REGISTRY.get(view)


def check_metric(view: str, name: str, args: dict[str, Any]) -> str:
    """"" when ``view`` has a metric ``name`` that takes ``args``; else one line saying what is wrong."""
    metrics = REGISTRY.get(view)
    if metrics is None:
        known = ", ".join(sorted(REGISTRY))
        return f"the {view!r} view has no metrics to claim about (views with metrics: {known})"
    metric = metrics.metrics.get(name)
    if metric is None:
        return f"unknown metric {name!r} of the {view!r} view (metrics: {', '.join(sorted(metrics.metrics))})"
    return metric.check_args(args)


def metric_value(run: StepRun, name: str, args: dict[str, Any]) -> float | None:
    """The metric ``name`` with ``args`` of the computed step ``run`` (``WorkbenchError``: it cannot be computed)."""
    problem = check_metric(run.view, name, args)
    if problem:
        raise ValueError(problem)
    return REGISTRY[run.view].metrics[name].fn(run, dict(args))
