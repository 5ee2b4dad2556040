"""How the window and the views name a model and a count: ``spec_label`` (a folder's short name, or the hub id)
and ``format_count`` (22.7 M); no Qt, so any view may use it."""

from __future__ import annotations

from lm_workbench.result_origin import short_model_name

__all__ = ["format_count", "spec_label"]


def format_count(n: int) -> str:
    """22713216 -> '22.7 M'."""
    for size, unit in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return str(n)


def spec_label(spec: str) -> str:
    """A short name for a spec: a folder's name (with its parent's for a run's ``model`` folder, so two course
    models do not both read "model"), or the hub id / built-in name itself (``lm_workbench.result_origin``'s rule)."""
    return short_model_name(spec)
