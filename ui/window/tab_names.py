"""The names in the window's tab bar: every view's full title while they all fit, its short title when they do
not (15 tabs at 1024 × 768, or presentation mode's large type); never elided to "T…" or "Atte…".

When even the short names do not fit, the bar scrolls (the current tab is always shown whole) and the list
button in its corner names every view, with its shortcut, so none is out of reach. Each tab's tooltip gives the
full title and the shortcut. The names are refitted when the tab widget is resized or its font changes (F5).
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMenu, QTabWidget, QToolButton

from lm_workbench.ui.view_kit.view_entry import ViewEntry
from lm_workbench.ui.widgets.interval_timer import interval_timer

_REFIT_ON = (QEvent.Type.Resize, QEvent.Type.FontChange, QEvent.Type.StyleChange, QEvent.Type.Show)


class TabNames(QObject):
    def __init__(self, tabs: QTabWidget, entries: Callable[[], list[ViewEntry]], parent: QObject | None = None):
        super().__init__(parent)
        self._tabs, self._entries = tabs, entries
        self.short = False  # whether the bar shows the short names now
        tabs.setElideMode(Qt.TextElideMode.ElideNone)
        tabs.setUsesScrollButtons(True)
        self.list_button = QToolButton(tabs)
        self.list_button.setObjectName("all_tabs")
        self.list_button.setArrowType(Qt.ArrowType.DownArrow)
        self.list_button.setToolTip("Every view (the tab bar scrolls when they do not all fit)")
        self.list_button.setAccessibleName("Every view")
        self.list_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.menu = QMenu(self.list_button)
        self.menu.aboutToShow.connect(self._fill_menu)
        self.list_button.setMenu(self.menu)
        tabs.setCornerWidget(self.list_button, Qt.Corner.TopRightCorner)
        self._pending = interval_timer(self, 0, self.refit, single_shot=True)
        tabs.installEventFilter(self)
        tabs.tabBar().installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in _REFIT_ON:
            self._pending.start()  # once, after the burst of events a resize or F5 sends
        return False

    def _entry_at(self, index: int) -> ViewEntry | None:
        by_id = {entry.id: entry for entry in self._entries()}
        return by_id.get(self._tabs.widget(index).objectName())

    def _room(self) -> int:
        corner = self._tabs.cornerWidget(Qt.Corner.TopRightCorner)
        return self._tabs.width() - (corner.sizeHint().width() if corner is not None and corner.isVisible() else 0)

    def refit(self) -> None:
        """Full titles if they all fit the bar's width, else the short ones; tooltips with the shortcut."""
        bar = self._tabs.tabBar()
        metrics = bar.fontMetrics()
        entries = [self._entry_at(i) for i in range(self._tabs.count())]
        frames = sum(bar.tabSizeHint(i).width() - metrics.horizontalAdvance(bar.tabText(i))
                     for i in range(bar.count()))  # what each tab adds around its text
        full = [e.title if e else self._tabs.tabText(i) for i, e in enumerate(entries)]
        self.short = frames + sum(metrics.horizontalAdvance(name) for name in full) > self._room()
        for i, entry in enumerate(entries):
            if entry is None:
                continue
            name = entry.short_title if self.short else entry.title
            if self._tabs.tabText(i) != name:
                self._tabs.setTabText(i, name)
            tip = f"{entry.menu_title}, {entry.shortcut}" if entry.shortcut else entry.menu_title  # "Fine-tune (Tune), Ctrl+8"
            if self._tabs.tabToolTip(i) != tip:
                self._tabs.setTabToolTip(i, tip)

    def _fill_menu(self) -> None:
        self.menu.clear()
        group = QActionGroup(self.menu)
        for i in range(self._tabs.count()):
            entry = self._entry_at(i)
            action = QAction(entry.menu_title if entry else self._tabs.tabText(i), self.menu)
            action.setCheckable(True)
            action.setChecked(i == self._tabs.currentIndex())
            if entry is not None and entry.shortcut:
                action.setShortcut(entry.shortcut)  # shown beside the name; the window's own action triggers it
                action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
            action.triggered.connect(lambda _checked=False, i=i: self._tabs.setCurrentIndex(i))
            group.addAction(action)
            self.menu.addAction(action)
