"""Where the main window opens and what of its place is saved: ``x,y,width,height[,max]``."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

from ui import theme

SCREEN_FRACTION = 0.88  # of the screen's free area, the first time the window opens


def parse_geometry(text: str) -> tuple[int, int, int, int, bool] | None:
    """(x, y, width, height, maximised) from ``saved_geometry``'s text; None when absent or damaged."""
    parts = text.split(",") if text else []
    if len(parts) not in (4, 5) or (len(parts) == 5 and parts[4] != "max"):
        return None
    try:
        x, y, width, height = (int(p) for p in parts[:4])
    except ValueError:
        return None
    return (x, y, width, height, len(parts) == 5) if width > 0 and height > 0 else None


def place_on_screen(window: QWidget, saved_text: str) -> None:
    """Where the window was last time if that is on a screen now, else most of the current screen."""
    saved = parse_geometry(saved_text)
    if saved is not None:
        x, y, width, height, maximized = saved
        if QGuiApplication.screenAt(QPoint(x + width // 2, y + height // 2)) is not None:
            window.resize(width, height)  # the window system keeps it within the screen
            window.move(x, y)
            if maximized:
                window.setWindowState(window.windowState() | Qt.WindowState.WindowMaximized)
            return
    screen = window.screen() or QGuiApplication.primaryScreen()
    least = theme.current().metrics.window_size  # the smallest size the views are laid out for
    if screen is None:
        window.resize(*least)
        return
    area = screen.availableGeometry()
    width = max(min(least[0], area.width()), int(area.width() * SCREEN_FRACTION))
    height = max(min(least[1], area.height()), int(area.height() * SCREEN_FRACTION))
    window.resize(width, height)
    window.move(area.x() + (area.width() - width) // 2, area.y() + (area.height() - height) // 2)


def saved_geometry(window: QWidget) -> str:
    """"x,y,width,height[,max]" of the normal (not maximised) window, for the settings."""
    if window.isMaximized():
        g = window.normalGeometry()
        return f"{g.x()},{g.y()},{g.width()},{g.height()},max"
    return f"{window.x()},{window.y()},{window.width()},{window.height()}"  # x, y: the frame's corner, as move() takes
