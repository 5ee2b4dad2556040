"""Presentation mode: the projector's theme tokens (``lm_workbench.ui.theme_tokens.presentation_tokens``), on and off.

The window owns one ``PresentationMode``; its View menu action (F5) calls
``set_on``. Switching swaps the current tokens, so every open view repaints
in them, pictures exported from then on use them, and the choice is kept in
the settings (``presentation_mode``) for the next start. The font follows the
height of the screen the window is on (``screen_height``; 20 pt at 1080 px,
``lm_workbench.ui.theme_tokens.presentation_pt``); ``refit`` takes a new screen's size.
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QGuiApplication

from lm_workbench.ui import theme
from lm_workbench.ui.theme_tokens import DEFAULT, Tokens, is_presentation, presentation_pt, presentation_tokens
from lm_workbench.settings import Settings


class PresentationMode(QObject):
    about_to_toggle = Signal(bool)  # before the tokens swap (widgets still have their sizes)
    toggled = Signal(bool)

    def __init__(self, settings: Settings, save: Callable[[], None] | None = None, parent: QObject | None = None,
                 screen_height: Callable[[], int | None] | None = None):
        super().__init__(parent)
        self._settings = settings
        self._save = save  # writes the settings (None: keep the choice in memory only, as tests do)
        self.screen_height = screen_height or _primary_height  # the available height of the window's screen

    def is_on(self) -> bool:
        return is_presentation(theme.current())

    def tokens(self) -> Tokens:
        """The presentation tokens for the current screen."""
        return presentation_tokens(presentation_pt(self.screen_height()))

    def set_on(self, on: bool) -> None:
        """Swap to the presentation tokens (or back to the default ones) and remember the choice."""
        on = bool(on)
        changed = on != self.is_on()
        if changed:
            self.about_to_toggle.emit(on)
            theme.set_tokens(self.tokens() if on else DEFAULT)
        if self._settings.presentation_mode != on:
            self._settings.presentation_mode = on
            if self._save is not None:
                self._save()
        if changed:
            self.toggled.emit(on)

    def toggle(self) -> None:
        self.set_on(not self.is_on())

    def refit(self) -> None:
        """On, with another screen (or its size changed): the tokens for that screen's height."""
        if self.is_on() and self.tokens() is not theme.current():
            theme.set_tokens(self.tokens())


def _primary_height() -> int | None:
    screen = QGuiApplication.primaryScreen()
    return screen.availableGeometry().height() if screen is not None else None
