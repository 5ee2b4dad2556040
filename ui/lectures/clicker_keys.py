"""PageDown and PageUp (what presentation clickers send) step, whichever widget of the window has the focus.

A text box or a list takes PageDown for itself (it asks to override
shortcuts), so a clicker would scroll the sentence box instead of showing
the next step. While a stepper is pushed on the window's ``Clicker``,
this filter keeps those two keys from being claimed, so the window's
Next/Previous actions get them; with no stepper, widgets keep them (and the
filter is not installed, so ordinary events never pass through Python).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QApplication, QWidget

from lm_workbench.clicker import Clicker

CLICKER_KEYS = (Qt.Key.Key_PageDown, Qt.Key.Key_PageUp)


class ClickerKeys(QObject):
    def __init__(self, window: QWidget, clicker: Clicker):
        super().__init__(window)  # removed from the application's filters when the window goes
        self._window = window
        self._clicker = clicker
        self._installed = False
        clicker.events.changed.connect(self._follow)

    def _follow(self) -> None:
        want = self._clicker.active() is not None
        if want != self._installed:
            app = QApplication.instance()
            if want:
                app.installEventFilter(self)
            else:
                app.removeEventFilter(self)
            self._installed = want

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if (event.type() == QEvent.Type.ShortcutOverride and event.key() in CLICKER_KEYS
                and event.modifiers() == Qt.KeyboardModifier.NoModifier
                and isinstance(watched, QWidget) and watched.window() is self._window):
            event.ignore()  # not claimed by the focused widget: the shortcut fires
            return True
        return False
