"""The Guide's place in the window: its page panel docked beside the views, and the lecture runner lent to it.

``install_guide(window)`` finds the registry's ``guide`` view (none: nothing to do), docks its ``PagePanel`` at
the right of the views (hidden until a page opens; the student may close or move it) and binds the view to the
window's lecture controller (``GuideDriver``), so a page opens its view as a lecture step does.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDockWidget

from lm_workbench.ui.theme_tokens import DEFAULT

GUIDE_VIEW = "guide"
PANEL_SHARE = 0.3  # of the window's width, when the page panel first opens


def install_guide(window: Any) -> QDockWidget | None:
    from lm_workbench.ui.guide.guide_view import GuideDriver

    if GUIDE_VIEW not in {e.id for e in window.view_host.entries()}:
        return None
    view = window.view_host.widget(GUIDE_VIEW)
    dock = QDockWidget("Guide page", window)
    dock.setObjectName("guideDock")
    dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable | QDockWidget.DockWidgetFeature.DockWidgetClosable)
    lectures = window.lectures
    view.bind(GuideDriver(start=lectures.start, runner=lectures.runner, status=lectures.status,
                          show_panel=lambda on: show_panel(on)))
    dock.setWidget(view.panel)  # after bind, which takes the panel out of the Guide tab
    window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
    dock.hide()
    sized = []

    def show_panel(on: bool) -> None:
        dock.setVisible(on)
        if on and not sized:  # the first time: 30 % of the window, the view keeps the rest
            sized.append(True)
            width = max(DEFAULT.metrics.dock_start_w, int(window.width() * PANEL_SHARE))
            window.resizeDocks([dock], [width], Qt.Orientation.Horizontal)

    return dock
