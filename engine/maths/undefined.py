"""A number that cannot be computed: ``None`` in results and JSON, with a note saying why.

A metric is undefined when its formula divides by nothing (an accuracy over no examples, a correlation over
constant values, Spearman's rho of fewer than three pairs, whose two points always give ±1) or when a loss is
zero by construction (in-batch negatives with one pair). Such a metric is never reported as ``nan`` and never
as a perfect or a zero score: its value is ``None`` and ``notes`` (a list of strings) holds
``"<metric> not defined: <why>"``; the window shows "not defined (<why>)". ``note`` writes that line, ``reasons``
reads it back (for a view that shows a value beside its reason), ``shown`` formats a value or its reason.
"""

from __future__ import annotations

import math
from typing import Any, Iterable

SAYS = " not defined: "


def note(metric: str, why: str) -> str:
    """``"mcc not defined: every gold label is 'pos'"``."""
    return f"{metric}{SAYS}{why}"


def add(notes: list[str] | None, metric: str, why: str) -> None:
    """Append ``note(metric, why)`` to ``notes`` (when given and not there yet)."""
    if notes is not None:
        line = note(metric, why)
        if line not in notes:
            notes.append(line)


def reasons(notes: Iterable[str]) -> dict[str, str]:
    """{metric: why} from the notes ``note`` wrote (other notes are passed over)."""
    out = {}
    for line in notes or ():
        metric, found, why = str(line).partition(SAYS)
        if found and metric.strip():
            out.setdefault(metric.strip(), why)
    return out


def value(number: Any) -> float | None:
    """``number`` as a float, or None when it is missing, not a number, NaN or infinite."""
    if number is None or isinstance(number, bool):
        return None
    try:
        out = float(number)
    except (TypeError, ValueError):
        return None
    return out if math.isfinite(out) else None


def shown(number: Any, metric: str = "", notes: Iterable[str] = (), digits: int = 4) -> str:
    """``"0.8123"``, or ``"not defined (every gold label is 'pos')"`` when ``number`` is None or not finite."""
    found = value(number)
    if found is not None:
        return f"{found:.{digits}f}"
    why = reasons(notes).get(metric)
    return f"not defined ({why})" if why else "not defined"
