"""Where the main window opens and what of its place is saved: ``x,y,width,height[,max]``."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QPoint, Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

from lm_workbench.ui import theme

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


def fitted(x: int, y: int, width: int, height: int, area: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """(x, y, width, height) of a saved place made to fit ``area`` (x, y, width, height of a screen's free area):
    no larger than it, and moved inside it (a laptop's 1920 x 1080 place on a 1280 x 720 projector)."""
    ax, ay, aw, ah = area
    width, height = min(width, aw), min(height, ah)
    return max(ax, min(x, ax + aw - width)), max(ay, min(y, ay + ah - height)), width, height


def place_on_screen(window: QWidget, saved_text: str) -> None:
    """Where the window was last time if that is on a screen now (fitted to that screen's free area: never off
    it), else most of the current screen."""
    _KeepOnScreenWhenShown(window)  # the frame (title bar, borders) is known once it is shown
    saved = parse_geometry(saved_text)
    if saved is not None:
        x, y, width, height, maximized = saved
        screen = QGuiApplication.screenAt(QPoint(x + width // 2, y + height // 2))
        if screen is not None:
            free = screen.availableGeometry()
            x, y, width, height = fitted(x, y, width, height, (free.x(), free.y(), free.width(), free.height()))
            window.resize(width, height)
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


def keep_on_screen(window: QWidget) -> None:
    """Move and shrink ``window`` so that its frame lies within its screen's free area (a maximised or full-screen
    window is left alone)."""
    if window.isMaximized() or window.isFullScreen():
        return
    screen = window.screen() or QGuiApplication.primaryScreen()
    if screen is None:
        return
    free, frame, inner = screen.availableGeometry(), window.frameGeometry(), window.geometry()
    x, y, width, height = fitted(frame.x(), frame.y(), frame.width(), frame.height(),
                                 (free.x(), free.y(), free.width(), free.height()))
    if (x, y, width, height) != (frame.x(), frame.y(), frame.width(), frame.height()):
        window.resize(width - (frame.width() - inner.width()), height - (frame.height() - inner.height()))
        window.move(x, y)


class _KeepOnScreenWhenShown(QObject):
    """Once: when ``window`` is first shown, ``keep_on_screen`` it."""

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if event.type() == QEvent.Type.Show:
            watched.removeEventFilter(self)
            for delay in (0, 100, 400):  # the window system adds the frame a moment after the window shows
                QTimer.singleShot(delay, watched, lambda: keep_on_screen(watched))
            self.deleteLater()
        return False
