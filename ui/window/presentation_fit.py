"""Presentation mode fits the screen: the model dock, the menu bar and the About panel fold away.

With F5 on, the views get the whole window: the model dock and the menu bar are hidden and the About panel
is collapsed to its header line. Each comes back while presenting: F6 the model dock, F10 the menu bar,
F1 (or its header) the About panel; the status bar says so once. With F5 off, each is put back as it was
before F5, the dock at its earlier width. The presentation font follows the height of the screen the window
is on (``PresentationMode.screen_height``); moving the window to another screen refits it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDockWidget, QMainWindow, QMenu, QTabWidget

from ui.window.about_panel import AboutPanel
from ui.theme_tokens import DEFAULT
from ui.window.presentation import PresentationMode
from ui.widgets.plot_style import restyle_axes

DOCK_KEY, MENU_KEY = "F6", "F10"
HINT = f"Presenting: {DOCK_KEY} shows the model panel, {MENU_KEY} the menu bar, F1 the About panel; F5 ends."


@dataclass(frozen=True)
class Folded:
    """What F5 folded away, to put back: the dock (shown, width), the menu bar, the About panel."""

    dock_visible: bool
    dock_width: int
    menu_visible: bool
    about_expanded: bool


class PresentationFit(QObject):
    def __init__(self, owner: QMainWindow, dock: QDockWidget, about: AboutPanel, presentation: PresentationMode,
                 status: Callable[[str], None], view_menu: QMenu | None = None, tabs: QTabWidget | None = None):
        super().__init__(owner)
        self._owner, self._dock, self._about = owner, dock, about
        self._presentation, self._status, self._tabs = presentation, status, tabs
        self.folded: Folded | None = None  # while presenting: what to put back
        presentation.screen_height = self.screen_height
        presentation.about_to_toggle.connect(self._remember)
        presentation.toggled.connect(self._toggled)
        dock.toggleViewAction().setShortcut(QKeySequence(DOCK_KEY))
        dock.toggleViewAction().setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        owner.addAction(dock.toggleViewAction())  # works with the menu bar hidden
        self.menu_action = QAction("&Menu bar", owner)
        self.menu_action.setCheckable(True)
        self.menu_action.setChecked(True)
        self.menu_action.setShortcut(QKeySequence(MENU_KEY))
        self.menu_action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.menu_action.setStatusTip("Show or hide the menu bar (hidden while presenting)")
        self.menu_action.toggled.connect(lambda on: owner.menuBar().setVisible(on))
        owner.addAction(self.menu_action)  # its shortcut works with the menu bar hidden
        if view_menu is not None:
            view_menu.insertAction(dock.toggleViewAction(), self.menu_action)
        self._watched = None
        if presentation.is_on():  # the window opens presenting: fold what the default layout shows
            self.folded = Folded(True, DEFAULT.metrics.dock_start_w, True, about.is_expanded())
            self._fold()
            restyle_axes(owner)

    def screen_height(self) -> int | None:
        """The available height of the screen the window is on (None before it has one)."""
        handle = self._owner.windowHandle()
        if handle is not None and handle is not self._watched:
            self._watched = handle
            handle.screenChanged.connect(lambda _screen: self.refit())
        screen = self._owner.screen()
        return screen.availableGeometry().height() if screen is not None else None

    def refit(self) -> None:
        """The presentation tokens for the window's screen now (moved to another screen)."""
        self._presentation.refit()
        restyle_axes(self._owner)

    # ------------------------------------------------------------ on / off
    def _remember(self, on: bool) -> None:
        """Before the tokens swap (the dock still has its width): what F5 on will fold away."""
        if on and self.folded is None:
            self.folded = Folded(self._dock.isVisible(), self._dock.width(), self._owner.menuBar().isVisible(),
                                 self._about.is_expanded())

    def _toggled(self, on: bool) -> None:
        restyle_axes(self._owner)
        if on:
            self._fold()
        else:
            self._unfold()

    def _fold(self) -> None:
        self._tabs_fit(True)
        self._dock.hide()
        self.menu_action.setChecked(False)
        self._about.set_expanded(False)
        self._status(HINT)

    def _tabs_fit(self, fit: bool) -> None:
        """Presenting, every tab shows in the tab bar (the names elided where needed) instead of scrolling."""
        if self._tabs is not None:
            self._tabs.setUsesScrollButtons(not fit)
            self._tabs.setElideMode(Qt.TextElideMode.ElideRight if fit else Qt.TextElideMode.ElideNone)

    def _unfold(self) -> None:
        self._tabs_fit(False)
        folded, self.folded = self.folded, None
        if folded is None:
            return
        self.menu_action.setChecked(folded.menu_visible)
        self._about.set_expanded(folded.about_expanded)
        self._dock.setVisible(folded.dock_visible)
        if folded.dock_visible and folded.dock_width > 0:
            self._restore_width(folded.dock_width)
            QTimer.singleShot(0, lambda: self._restore_width(folded.dock_width))  # after the relayout

    def _restore_width(self, width: int) -> None:
        if self._dock.isVisible() and self._dock.width() != width:
            self._owner.resizeDocks([self._dock], [width], Qt.Orientation.Horizontal)
