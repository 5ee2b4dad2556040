"""``ViewIdentity``: the two things a ``ViewContext`` reads of its view's registry entry (its id, whether it reads
the text box). ``ViewEntry`` has both; naming them here lets ``view_context`` and ``view_entry`` not import each
other (the entry creates the view with its context; the context only needs the entry's identity)."""

from __future__ import annotations

from typing import Protocol


class ViewIdentity(Protocol):
    id: str  # the view's stable name (settings, tests and presets refer to it)

    def reads_text(self) -> bool:
        """True when the view declares the window's text box as an input."""
        ...
