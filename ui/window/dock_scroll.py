"""The model dock's panel scrolls up and down: a dock never asks for more height than the screen has."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QFrame, QScrollArea, QWidget


def vertically_scrolling(panel: QWidget) -> QScrollArea:
    """``panel`` in a scroll area that scrolls up and down only: the dock asks for the panel's width but not its
    height, so showing it on a short screen (F6 while presenting at 1280 x 720) never grows the window past it."""
    area = QScrollArea()
    area.setObjectName("modelDockScroll")
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    area.setWidget(panel)
    _WidthFollowsPanel(area, panel)
    return area


class _WidthFollowsPanel(QObject):
    """Keeps the scroll area as wide as the panel needs (its minimum width changes with the tokens: F5)."""

    def __init__(self, area: QScrollArea, panel: QWidget) -> None:
        super().__init__(area)
        self._area, self._panel = area, panel
        panel.installEventFilter(self)
        self._fit()

    def _fit(self) -> None:
        bar = self._area.verticalScrollBar().sizeHint().width()
        self._area.setMinimumWidth(self._panel.minimumSizeHint().width() + bar)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if event.type() in (QEvent.Type.LayoutRequest, QEvent.Type.Show, QEvent.Type.FontChange):
            self._fit()
        return False
