"""Presentation mode: the projector's theme tokens (``ui.theme_tokens.PRESENTATION``), on and off.

The window owns one ``PresentationMode``; its View menu action (F5) calls
``set_on``. Switching swaps the current tokens, so every open view repaints
in them, pictures exported from then on use them, and the choice is kept in
the settings (``presentation_mode``) for the next start.
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QObject, Signal

from ui import theme
from ui.theme_tokens import DEFAULT, PRESENTATION
from workbench.settings import Settings


class PresentationMode(QObject):
    toggled = Signal(bool)

    def __init__(self, settings: Settings, save: Callable[[], None] | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self._settings = settings
        self._save = save  # writes the settings (None: keep the choice in memory only, as tests do)

    def is_on(self) -> bool:
        return theme.current() is PRESENTATION

    def set_on(self, on: bool) -> None:
        """Swap to the presentation tokens (or back to the default ones) and remember the choice."""
        on = bool(on)
        changed = on != self.is_on()
        if changed:
            theme.set_tokens(PRESENTATION if on else DEFAULT)
        if self._settings.presentation_mode != on:
            self._settings.presentation_mode = on
            if self._save is not None:
                self._save()
        if changed:
            self.toggled.emit(on)

    def toggle(self) -> None:
        self.set_on(not self.is_on())
