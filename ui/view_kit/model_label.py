"""How the window and the views name a model and a count: ``spec_label`` (a folder's short name, or the hub id)
and ``format_count`` (22.7 M); no Qt, so any view may use it."""

from __future__ import annotations

from pathlib import Path

__all__ = ["format_count", "spec_label"]


def format_count(n: int) -> str:
    """22713216 -> '22.7 M'."""
    for size, unit in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return str(n)


def spec_label(spec: str) -> str:
    """A short name for a spec: a folder's name (with its parent's for a run's ``model`` folder, so two course
    models do not both read "model"), or the hub id / built-in name itself."""
    if "/" in spec and (spec.startswith(("/", ".", "~")) or Path(spec).exists()):
        path = Path(spec.rstrip("/"))
        if path.name == "model" and path.parent.name:
            return f"{path.parent.name}/{path.name}"
        return path.name or spec
    return spec
