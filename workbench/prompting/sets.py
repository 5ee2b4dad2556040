"""The installed prompt sets: built-in and third-party plugins of the ``prompt-set`` kind.

``prompt_set_registry`` discovers them as every extension kind is discovered (entry points, and folder
plugins the user enabled), so a broken set shows in the Plugins dialog with its reason instead of breaking
the lab. ``example_data_path`` finds the labelled file a set ships, by the set's name.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.extensions.discovery import discover
from lm_workbench.extensions.prompt_set_kind import PROMPT_SETS
from lm_workbench.extensions.registry import PluginRegistry


def prompt_set_registry(settings: Any = None, root: Path | None = None) -> PluginRegistry:
    """The usable prompt sets: ``names()``, ``contribution(name)`` (a ``PromptSet`` instance), ``record(name)``."""
    return PluginRegistry(discover(settings, root), PROMPT_SETS)


def example_data_path(name: str, registry: PluginRegistry | None = None) -> Path | None:
    """The labelled file the prompt set ``name`` ships, or None when no such set (or no file) is installed."""
    registry = registry or prompt_set_registry()
    if name not in registry.names():
        return None
    path = registry.contribution(name).example_data()
    if path is not None and not Path(path).is_file():
        raise WorkbenchError(f"the prompt set {name!r} names example data that is missing: {path}")
    return None if path is None else Path(path)
