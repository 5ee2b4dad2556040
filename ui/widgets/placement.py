"""Where a tool window opens: over the window it belongs to, inside that screen's free area (a window with no
window manager, or one that ignores the parent, otherwise opens at the screen's top-left corner)."""

from __future__ import annotations

from PySide6.QtCore import QPoint
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget


def place_over(widget: QWidget, owner: QWidget, where: str = "centre") -> QPoint:
    """Move ``widget`` (at its size now) over ``owner``: centred (``"centre"``) or against its right edge,
    vertically centred (``"right"``); kept within the owner's screen. Returns the top-left corner chosen."""
    frame = owner.frameGeometry()
    size = widget.frameGeometry().size() if widget.isVisible() else widget.size()
    x = frame.right() - size.width() if where == "right" else frame.center().x() - size.width() // 2
    y = frame.center().y() - size.height() // 2
    screen = owner.screen() or QGuiApplication.primaryScreen()
    if screen is not None:
        free = screen.availableGeometry()
        x = max(free.left(), min(x, free.right() + 1 - size.width()))
        y = max(free.top(), min(y, free.bottom() + 1 - size.height()))
    corner = QPoint(x, y)
    widget.move(corner)
    return corner
