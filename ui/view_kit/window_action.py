"""A menu action of the main window whose shortcut works anywhere in it."""

from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QWidget


def window_action(owner: QWidget, text: str, shortcut: QKeySequence | str | None, slot: Callable[[], Any],
                  tip: str = "") -> QAction:
    """A ``QAction`` called ``text`` that calls ``slot()`` (without Qt's checked flag) when triggered; its
    ``shortcut`` (None: none) works in the whole window, and it is added to ``owner`` so the shortcut works even
    with the menu bar hidden; ``tip`` is its tooltip and status tip when given."""
    action = QAction(text, owner)
    if shortcut is not None:
        action.setShortcut(QKeySequence(shortcut))
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
    if tip:
        action.setStatusTip(tip)
        action.setToolTip(tip)
    action.triggered.connect(lambda _checked=False: slot())
    owner.addAction(action)
    return action
