"""Presentation mode fits the screen: the model dock, the menu bar and the About panel fold away.

With F5 on, the views get the whole window: the model dock and the menu bar are hidden and the About panel
is collapsed to its header line. Each comes back while presenting: F6 the model dock, F10 the menu bar,
F1 (or its header) the About panel; the status bar says so once. With F5 off, each is put back as it was
before F5, the dock at its earlier width. The presentation font follows the height of the screen the window
is on (``PresentationMode.screen_height``); moving the window to another screen refits it. It works on a
``WindowFrame`` (the menu bar, the model dock, the screen, as callables; ``window_frame`` makes one of a main
window) and the About panel's folding, never the window itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDockWidget, QMainWindow, QMenu

from lm_workbench.ui.theme_tokens import DEFAULT
from lm_workbench.ui.window.presentation import PresentationMode
from lm_workbench.ui.widgets.plot_style import restyle_axes

if TYPE_CHECKING:
    from PySide6.QtGui import QScreen, QWindow

    from lm_workbench.ui.window.about_panel import AboutPanel

DOCK_KEY, MENU_KEY = "F6", "F10"
HINT = f"Presenting: {DOCK_KEY} shows the model panel, {MENU_KEY} the menu bar, F1 the About panel; F5 ends."
ENDED = "Presentation mode off (F5 presents again)"


@dataclass(frozen=True)
class Folded:
    """What F5 folded away, to put back: the dock (shown, width), the menu bar, the About panel."""

    dock_visible: bool
    dock_width: int
    menu_visible: bool
    about_expanded: bool


@dataclass(frozen=True)
class WindowFrame:
    """What presentation mode folds of the window, as callables: its menu bar, its model dock, its screen."""

    add_action: Callable[[QAction], None]  # an action whose shortcut works with the menu bar hidden
    menu_bar_visible: Callable[[], bool]
    show_menu_bar: Callable[[bool], None]
    dock_action: QAction  # shows or hides the model dock
    dock_visible: Callable[[], bool]
    dock_width: Callable[[], int]
    show_dock: Callable[[bool], None]
    resize_dock: Callable[[int], None]
    screen: Callable[[], QScreen | None]  # the screen the window is on
    window_handle: Callable[[], QWindow | None]  # its native window: says when the screen changes
    restyle: Callable[[], None]  # the window's plots in the tokens now


def window_frame(window: QMainWindow, dock: QDockWidget) -> WindowFrame:
    return WindowFrame(
        add_action=window.addAction, menu_bar_visible=lambda: window.menuBar().isVisible(),
        show_menu_bar=lambda on: window.menuBar().setVisible(on), dock_action=dock.toggleViewAction(),
        dock_visible=dock.isVisible, dock_width=dock.width, show_dock=dock.setVisible,
        resize_dock=lambda width: window.resizeDocks([dock], [width], Qt.Orientation.Horizontal),
        screen=window.screen, window_handle=window.windowHandle, restyle=lambda: restyle_axes(window),
    )


class PresentationFit(QObject):
    def __init__(self, frame: WindowFrame, about: AboutPanel, presentation: PresentationMode,
                 status: Callable[[str], None], view_menu: QMenu | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self._frame, self._about = frame, about
        self._presentation, self._status = presentation, status
        self.folded: Folded | None = None  # while presenting: what to put back
        presentation.screen_height = self.screen_height
        presentation.about_to_toggle.connect(self._remember)
        presentation.toggled.connect(self._toggled)
        frame.dock_action.setShortcut(QKeySequence(DOCK_KEY))
        frame.dock_action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        frame.add_action(frame.dock_action)  # works with the menu bar hidden
        self.menu_action = QAction("&Menu bar", self)
        self.menu_action.setCheckable(True)
        self.menu_action.setChecked(True)
        self.menu_action.setShortcut(QKeySequence(MENU_KEY))
        self.menu_action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.menu_action.setStatusTip("Show or hide the menu bar (hidden while presenting)")
        self.menu_action.toggled.connect(frame.show_menu_bar)
        frame.add_action(self.menu_action)  # its shortcut works with the menu bar hidden
        if view_menu is not None:
            view_menu.insertAction(frame.dock_action, self.menu_action)
        self._watched = None
        self.restyled = False  # the window's plots were restyled (F5 on or off): a view made later is too
        if presentation.is_on():  # the window opens presenting: fold what the default layout shows
            self.folded = Folded(True, DEFAULT.metrics.dock_start_w, True, about.is_expanded())
            self._fold()
            self._restyle()

    def _restyle(self) -> None:
        self.restyled = True
        self._frame.restyle()

    def screen_height(self) -> int | None:
        """The available height of the screen the window is on (None before it has one)."""
        handle = self._frame.window_handle()
        if handle is not None and handle is not self._watched:
            self._watched = handle
            handle.screenChanged.connect(lambda _screen: self.refit())
        screen = self._frame.screen()
        return screen.availableGeometry().height() if screen is not None else None

    def refit(self) -> None:
        """The presentation tokens for the window's screen now (moved to another screen)."""
        self._presentation.refit()
        self._restyle()

    # ------------------------------------------------------------ on / off
    def _remember(self, on: bool) -> None:
        """Before the tokens swap (the dock still has its width): what F5 on will fold away."""
        if on and self.folded is None:
            frame = self._frame
            self.folded = Folded(frame.dock_visible(), frame.dock_width(), frame.menu_bar_visible(),
                                 self._about.is_expanded())

    def _toggled(self, on: bool) -> None:
        self._restyle()
        if on:
            self._fold()
        else:
            self._unfold()

    def _fold(self) -> None:
        self._frame.show_dock(False)
        self.menu_action.setChecked(False)
        self._about.set_expanded(False)
        self._status(HINT)

    def _unfold(self) -> None:
        self._status(ENDED)  # F5's hint goes
        folded, self.folded = self.folded, None
        if folded is None:
            return
        self.menu_action.setChecked(folded.menu_visible)
        self._about.set_expanded(folded.about_expanded)
        self._frame.show_dock(folded.dock_visible)
        if folded.dock_visible and folded.dock_width > 0:
            self._restore_width(folded.dock_width)
            QTimer.singleShot(0, lambda: self._restore_width(folded.dock_width))  # after the relayout

    def _restore_width(self, width: int) -> None:
        if self._frame.dock_visible() and self._frame.dock_width() != width:
            self._frame.resize_dock(width)
