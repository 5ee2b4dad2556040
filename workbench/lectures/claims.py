"""Claims: what a lecture step says its view shows, as a predicate a machine can check (no Qt, no torch).

A step of a ``lm-workbench-preset/2`` file may carry ``claims``, each one line of text and a comparison of a
*metric* of the view's computed result with a number or another metric::

    {"text": "\\"class\\" matters in the first layer", "metric": "effect", "args": {"layer": 0, "token": "class"},
     "op": ">", "value": 0.5}
    {"text": "[CLS] ranks worse than mean pooling", "metric": "ndcg", "op": "<",
     "value": {"step": 1, "metric": "ndcg"}}
    {"text": "about 15 % are picked", "metric": "selected", "op": "~=", "value": 0.15, "tolerance": 0.01}

``metric`` names one of the step's view's metrics (``lm_workbench.lectures.metrics``: each view declares its
names and the arguments each takes); ``op`` is one of ``OPS``; ``value`` is a number, the name of another
metric of the same step, or ``{"metric": name, "args": {...}, "step": n}`` (``step``: another step of the same
preset, counted from 1 as the caption bar counts, computed with that step's model and settings).
``tolerance`` goes with ``~=`` only (|a − b| ≤ tolerance). The Guide's exercises and the studies' lecture
steps reuse ``Claim``, ``parse_claims`` and ``compare``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

OPS = (">", ">=", "<", "<=", "==", "!=", "~=")
MAX_TEXT = 200
_CLAIM_KEYS = {"text", "metric", "args", "op", "value", "tolerance"}
_REF_KEYS = {"metric", "args", "step"}
EXACT = 1e-9  # ``==`` and ``!=`` compare numbers to this (metrics are floats: counts and indices come exact)


class ClaimError(ValueError):
    """A claim that does not follow the format; the message names the field (without the file)."""


@dataclass(frozen=True)
class MetricRef:
    """One metric of one step's result: ``name`` with ``args``; ``step`` None: the claim's own step, else the
    1-based step of the same preset."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)
    step: int | None = None

    def to_json(self) -> Any:
        if not self.args and self.step is None:
            return self.name
        out: dict[str, Any] = {"metric": self.name}
        if self.args:
            out["args"] = dict(self.args)
        if self.step is not None:
            out["step"] = self.step
        return out

    def label(self) -> str:
        """``name(arg=value, ...)`` with ``[step n]`` for another step: how the verify table names it."""
        args = ", ".join(f"{k}={v!r}" for k, v in self.args.items())
        where = f" [step {self.step}]" if self.step is not None else ""
        return f"{self.name}({args}){where}" if args else f"{self.name}{where}"


@dataclass(frozen=True)
class Claim:
    text: str
    metric: MetricRef
    op: str
    value: float | MetricRef
    tolerance: float | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"text": self.text, "metric": self.metric.name}
        if self.metric.args:
            out["args"] = dict(self.metric.args)
        out["op"] = self.op
        out["value"] = self.value.to_json() if isinstance(self.value, MetricRef) else self.value
        if self.tolerance is not None:
            out["tolerance"] = self.tolerance
        return out

    def refs(self) -> list[MetricRef]:
        """The metrics this claim reads (its own, and the one it compares with when there is one)."""
        return [self.metric] + ([self.value] if isinstance(self.value, MetricRef) else [])

    def predicate(self) -> str:
        """``metric op value`` as one line, e.g. ``effect(layer=0, token='class') > 0.5``."""
        right = self.value.label() if isinstance(self.value, MetricRef) else f"{self.value:g}"
        tol = f" ± {self.tolerance:g}" if self.tolerance is not None else ""
        return f"{self.metric.label()} {self.op} {right}{tol}"


def compare(left: float, op: str, right: float, tolerance: float | None = None) -> bool:
    """Whether ``left op right`` holds (``~=``: within ``tolerance``; ``==``/``!=``: within 1e-9)."""
    if op == ">":
        return left > right
    if op == ">=":
        return left >= right
    if op == "<":
        return left < right
    if op == "<=":
        return left <= right
    if op == "==":
        return abs(left - right) <= EXACT
    if op == "!=":
        return abs(left - right) > EXACT
    if op == "~=":
        return abs(left - right) <= float(tolerance or 0.0)
    raise ClaimError(f"unknown op {op!r} (ops: {' '.join(OPS)})")


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


# check_metric(view, name, args) -> an error message or "" (the registry's; a parameter keeps this module light)
MetricCheck = Callable[[str, str, dict[str, Any]], str]


def _ref(data: Any, where: str, view_of: Callable[[int | None], str | None], check: MetricCheck,
         metric_where: str = "") -> MetricRef:
    """``metric_where``: how to name the metric field in a message (default ``<where>.metric``)."""
    metric_where = metric_where or f"{where}.metric"
    if isinstance(data, str):
        data = {"metric": data}
    if not isinstance(data, dict):
        raise ClaimError(f"{where}: must be a number, a metric name or an object with \"metric\"")
    extra = sorted(set(data) - _REF_KEYS)
    if extra:
        raise ClaimError(f"{where}: unknown key(s) {', '.join(extra)} (allowed: {', '.join(sorted(_REF_KEYS))})")
    name, args, step = data.get("metric"), data.get("args", {}), data.get("step")
    if not isinstance(name, str) or not name.strip():
        raise ClaimError(f"{metric_where}: must be a metric name")
    if not isinstance(args, dict):
        raise ClaimError(f"{where}.args: must be an object")
    if step is not None and (not isinstance(step, int) or isinstance(step, bool)):
        raise ClaimError(f"{where}.step: must be a step number (1 for the first step)")
    view = view_of(step)
    if view is None:
        raise ClaimError(f"{where}.step: there is no step {step} in this preset")
    problem = check(view, name, dict(args))
    if problem:
        raise ClaimError(f"{metric_where}: {problem}")
    return MetricRef(name, dict(args), step)


def parse_claim(data: Any, where: str, view_of: Callable[[int | None], str | None], check: MetricCheck) -> Claim:
    """One claim; ``view_of(step)`` is the view of that step (None: the claim's own) or None when there is no
    such step; ``check`` the registry's metric check. A ``ClaimError`` names the field."""
    if not isinstance(data, dict):
        raise ClaimError(f"{where}: must be an object with text, metric, op and value")
    extra = sorted(set(data) - _CLAIM_KEYS)
    if extra:
        raise ClaimError(f"{where}: unknown key(s) {', '.join(extra)} (allowed: {', '.join(sorted(_CLAIM_KEYS))})")
    for key in ("text", "metric", "op", "value"):
        if key not in data:
            raise ClaimError(f"{where}.{key}: is missing")
    text = data["text"]
    if not isinstance(text, str) or not text.strip() or "\n" in text or len(text) > MAX_TEXT:
        raise ClaimError(f"{where}.text: must be one line of at most {MAX_TEXT} characters")
    op = data["op"]
    if op not in OPS:
        raise ClaimError(f"{where}.op: unknown op {op!r} (ops: {' '.join(OPS)})")
    if not isinstance(data["metric"], str):
        raise ClaimError(f"{where}.metric: must be a metric name (its arguments go in \"args\")")
    metric = _ref({"metric": data["metric"], "args": data.get("args", {})}, where, view_of, check)
    raw = data["value"]
    if isinstance(raw, str):
        raw = {"metric": raw}
    value: float | MetricRef = float(raw) if _number(raw) else _ref(raw, f"{where}.value", view_of, check,
                                                                    f"{where}.value")
    tolerance = data.get("tolerance")
    if op == "~=":
        if not _number(tolerance) or tolerance < 0:
            raise ClaimError(f"{where}.tolerance: ~= needs a tolerance (a number at least 0)")
        tolerance = float(tolerance)
    elif tolerance is not None:
        raise ClaimError(f"{where}.tolerance: only ~= takes a tolerance")
    return Claim(text=text, metric=metric, op=op, value=value, tolerance=tolerance)


def parse_claims(data: Any, where: str, view_of: Callable[[int | None], str | None], check: MetricCheck
                 ) -> tuple[Claim, ...]:
    """A step's ``claims`` list (see ``parse_claim``)."""
    if not isinstance(data, list):
        raise ClaimError(f"{where}: must be a list of claims")
    return tuple(parse_claim(c, f"{where}[{i}]", view_of, check) for i, c in enumerate(data))
