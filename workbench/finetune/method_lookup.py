"""Finding a fine-tuning method plugin by its ``--method`` name (entry-point group ``lm_workbench.finetune_methods``)."""

from __future__ import annotations

from typing import Any

from engine.errors import WorkbenchError

GROUP = "lm_workbench.finetune_methods"


def method_names() -> list[str]:
    from importlib.metadata import entry_points

    return sorted({ep.name for ep in entry_points(group=GROUP)})


def find_method(name: str) -> Any:
    """An instance of the method registered as ``name``; ``WorkbenchError`` naming the known ones otherwise."""
    from importlib.metadata import entry_points

    found = [ep for ep in entry_points(group=GROUP) if ep.name == name]
    if not found:
        raise WorkbenchError(f"unknown fine-tuning method {name!r}; methods: {', '.join(method_names()) or 'none'}")
    try:
        return found[0].load()()
    except Exception as exc:  # a plugin's own import or constructor
        raise WorkbenchError(f"the fine-tuning method {name!r} cannot be loaded: {type(exc).__name__}: {exc}") from None


def method_source(name: str) -> str:
    """The distribution (and version) that registers method ``name``."""
    from importlib.metadata import entry_points

    for ep in entry_points(group=GROUP):
        if ep.name == name and ep.dist is not None:
            return f"{ep.dist.name} {ep.dist.version}"
    return "unknown"
