"""A kind of extension: one entry-point group and what a valid contribution to it is.

Discovery, the plugins folder, the registries and the Plugins dialog work
for every kind alike; a kind only says where its contributions are
registered (``group``), what they subclass (``base``, a class of the plugin
API with class attributes ``name`` and ``api_version``), what else makes one
valid (``check``) and which model families it describes (``families``).
``kinds.KINDS`` lists the kinds the workbench knows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from lm_workbench.engine.plugin_api import api_version_problem, config_fields
from lm_workbench.extensions.records import describe_exception


def config_problem(cls: type) -> str | None:
    """Why the settings of a plugin class with a ``Config`` dataclass (an objective, a fine-tuning method) cannot
    be used: the class cannot be made, a field is of a kind no form shows, or its own ``check_config`` refuses its
    defaults; None when they can. The plugin's own exception is described, never raised."""
    try:
        plugin = cls()
        config_fields(cls.Config)
        plugin.check_config(plugin.default_config())
    except Exception as exc:  # a plugin's own code
        return f"bad config: {describe_exception(exc)}"
    return None


def _no_problem(cls: type) -> str | None:
    return None


def _no_families(cls: type) -> list[str]:
    return []


@dataclass(frozen=True)
class ExtensionKind:
    """``name`` is what plugin.json's "kind" says and what the Plugins dialog shows (e.g. "objective")."""

    name: str
    group: str  # the entry-point group, e.g. "lm_workbench.objectives"
    base: type  # contributions are subclasses of this plugin-API class
    check: Callable[[type], str | None] = _no_problem  # why a subclass is still unusable, or None
    families: Callable[[type], list[str]] = _no_families  # the model families a contribution is for

    def problem(self, cls: Any, expected_name: str) -> str | None:
        """Why ``cls`` cannot serve as the contribution ``expected_name`` of this kind, or None when it can."""
        if not (isinstance(cls, type) and issubclass(cls, self.base)):
            return f"{cls!r} is not a subclass of lm_workbench.engine.plugin_api.{self.base.__name__}"
        version = api_version_problem(getattr(cls, "api_version", None))
        if version:
            return version
        name = getattr(cls, "name", None)
        if not isinstance(name, str) or name != expected_name:
            return f"its class says name {name!r} but it is registered as {expected_name!r}"
        return self.check(cls)
