"""The installed window, seen from the core without importing Qt: the ``lm_workbench.frontends`` entry point named
``gui`` (the window registers itself there) and what its module offers the core (``preset_views``: the views'
ids and the setting keys each applies, for preset and guide checks)."""

from __future__ import annotations

from typing import Any, Mapping

FRONTENDS_GROUP = "lm_workbench.frontends"  # the window registers itself here (name "gui")
_VIEWS: dict[str, Any] = {}


def frontend_attribute(name: str) -> Any:
    """``name`` from the module of the installed window (the ``gui`` front-end entry point), or None when no
    window is installed or it has no such attribute; this core package never imports the Qt layer itself."""
    import importlib
    from importlib.metadata import entry_points

    found = [ep for ep in entry_points(group=FRONTENDS_GROUP) if ep.name == "gui"]
    if not found:
        return None
    try:
        module = importlib.import_module(found[0].module)
    except ImportError:
        return None
    return getattr(module, name, None)


def window_views() -> Mapping[str, frozenset[str]] | None:
    """The installed window's views (id -> setting keys each applies; read once per process), or None when no
    window is installed."""
    if "views" not in _VIEWS:
        views = frontend_attribute("preset_views")
        _VIEWS["views"] = views() if callable(views) else None
    return _VIEWS["views"]
