"""``RecorderActions``: what the recorder's panel asks of the ``LectureRecorder`` (its buttons' actions and the
views' titles). The recorder creates the panel; the panel needs only these, so the two modules do not import
each other."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from PySide6.QtGui import QAction


class RecorderActions(Protocol):
    add_action: QAction  # "Add step", with its shortcut and tooltip

    def titles(self) -> dict[str, str]:
        """View id -> the view's title."""
        ...

    def add_step(self, caption: str = "") -> int | None: ...

    def retake(self, index: int) -> None: ...

    def save(self, path: str | Path | None = None, *, ask: bool = False) -> Path | None: ...

    def play(self, index: int = 0) -> bool: ...
