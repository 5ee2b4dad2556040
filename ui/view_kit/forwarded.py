"""Read-only properties that hand on an attribute of something the object holds: ``settings =
forwarded("_shell.settings")`` instead of a four-line ``@property`` that returns ``self._shell.settings``."""

from __future__ import annotations

from operator import attrgetter


def forwarded(path: str, doc: str | None = None) -> property:
    """A read-only property returning the attribute at the dotted ``path`` from the instance (read on every
    access, so it follows what the held object has now)."""
    return property(attrgetter(path), doc=doc)
