"""Two runs' settings compared: the Qt-free twin of the Runs tab's config diff (``lm-workbench runs diff``).

Params are flattened to dotted keys (``training.lr``); a key one run lacks counts as different.
"""

from __future__ import annotations

from typing import Any

MISSING = None


def flatten(params: Any, prefix: str = "") -> dict[str, Any]:
    """``{"training": {"lr": 1e-3}}`` -> ``{"training.lr": 1e-3}``; lists and scalars are leaves."""
    if not isinstance(params, dict):
        return {prefix or "value": params}
    out: dict[str, Any] = {}
    for key, value in params.items():
        name = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, dict) and value:
            out.update(flatten(value, name))
        else:
            out[name] = value
    return out


def diff_params(a: dict[str, Any], b: dict[str, Any]) -> list[dict[str, Any]]:
    """Every setting of either run, sorted: ``{setting, a, b, differs, only}`` (``only``: "a", "b" or None)."""
    fa, fb = flatten(a or {}), flatten(b or {})
    rows = []
    for key in sorted(set(fa) | set(fb)):
        only = "a" if key not in fb else "b" if key not in fa else None
        rows.append({"setting": key, "a": fa.get(key), "b": fb.get(key),
                     "differs": only is not None or fa.get(key) != fb.get(key), "only": only})
    return rows
