"""What the workbench knows about one plugin: its kind, where it came from, whether it works, and why not."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

ENTRY_POINT, FOLDER = "entry-point", "folder"
OK, ERROR, DISABLED = "ok", "error", "disabled"


def one_line(text: Any) -> str:
    return " ".join(str(text).split())


def describe_exception(exc: BaseException) -> str:
    """"TypeName: message" on one line (just the type name when there is no message)."""
    text = one_line(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


@dataclass
class PluginRecord:
    """One plugin. ``plugin_class`` is set only when ``status`` is ok."""

    name: str
    source: str  # ENTRY_POINT or FOLDER
    status: str  # OK, ERROR or DISABLED
    kind: str = ""  # the ExtensionKind's name, e.g. "objective"
    version: str = ""
    api_version: str | int | None = None
    families: list[str] = field(default_factory=list)
    error: str | None = None
    location: str = ""  # the entry point's "module:Class", or the plugin folder
    plugin_class: Any = field(default=None, repr=False, compare=False)

    def fail(self, message: str) -> "PluginRecord":
        """Mark the plugin broken with a one-line message."""
        self.status = ERROR
        self.error = one_line(message)
        self.plugin_class = None
        return self

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name, "kind": self.kind, "version": self.version, "api_version": self.api_version,
            "families": list(self.families), "source": self.source, "status": self.status,
            "error": self.error, "location": self.location,
        }
