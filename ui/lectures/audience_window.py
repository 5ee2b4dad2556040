"""View > Audience window: the current view alone, for the projector, while the laptop keeps the controls.

A separate top-level window with no dock, menus or forms: the current view's output (what File > Export
saves: ``export_widget``, else the whole view) as a live picture, under the lecture step's caption (the
view's title when no lecture runs), in the presentation theme's colours and caption size for its screen. It
opens on the second screen, full screen, when there is one (the screen the main window is not on). It follows
the main window: a tab change and a lecture step redraw it at once, and it takes a fresh picture of the view a
few times a second, so whatever the teacher does there shows. The views stay in the main window (nothing is
re-parented) and the audience window never takes the keyboard. It gets the window's ``ViewDriver``
(``lm_workbench.ui.view_kit.window_parts``) and the lecture's runner, never the window's views or view host.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QAction, QCloseEvent, QGuiApplication, QHideEvent, QPixmap, QResizeEvent, QShowEvent
from PySide6.QtWidgets import QMenu, QSizePolicy, QWidget

from lm_workbench.ui.theme_tokens import Tokens, presentation_pt, presentation_tokens
from lm_workbench.ui.widgets.placement import place_over
from lm_workbench.ui.widgets.boxes import column
from lm_workbench.ui.widgets.controls import label
from lm_workbench.ui.widgets.interval_timer import interval_timer

if TYPE_CHECKING:
    from PySide6.QtGui import QScreen

    from lm_workbench.ui.view_kit.window_parts import ViewDriver
    from lm_workbench.lectures.runner import PresetRunner

REFRESH_MS = 300  # a fresh picture of the view this often while the window is shown
SIZE_FRACTION = 0.5  # of the main window, on a single screen


def choose_screen(screens: Sequence[Any], main_screen: Any) -> tuple[Any, bool]:
    """(the screen for the audience, whether it is a second one): the first screen the main window is not on,
    else the main window's own."""
    for screen in screens:
        if screen is not main_screen and screen != main_screen:
            return screen, True
    return main_screen, False


class AudienceWindow(QWidget):
    closed = Signal()

    def __init__(self, views: ViewDriver, runner: PresetRunner, parent: QWidget):
        super().__init__(parent, Qt.WindowType.Window)
        self.setObjectName("audienceWindow")
        self.setWindowTitle("LM Workbench: audience")
        self.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)  # the keys stay with the main window
        self.views, self.runner = views, runner
        self.view_id: str | None = None
        self.picture: QPixmap | None = None  # the view's last picture, at its own size
        self.tokens: Tokens = presentation_tokens()
        self.caption = label(name="audienceCaption", wrap=True)
        self.caption.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.mirror = label(name="audienceView")
        self.mirror.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.mirror.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)  # follows the window
        self.column = column(self, self.caption, (self.mirror, 1), margins=None, spacing=None)
        self.timer = interval_timer(self, REFRESH_MS, self.refresh)
        self._apply_tokens()

    def _apply_tokens(self) -> None:
        """The presentation theme for the screen the window is on (its colours, margins and caption size)."""
        screen = self.screen()
        self.tokens = presentation_tokens(presentation_pt(screen.availableGeometry().height() if screen else None))
        c, f, m = self.tokens.colours, self.tokens.fonts, self.tokens.metrics
        self.setStyleSheet(
            f"QWidget#audienceWindow {{ background: {c.base_bg}; }}"
            f" QLabel#audienceCaption {{ color: {c.ink}; font-size: {f.pt(f.lecture_caption_delta)}pt;"
            f" font-weight: 600; }}"
            f" QLabel#audienceView {{ background: {c.base_bg}; }}")
        self.column.setContentsMargins(*m.panel_margins)
        self.column.setSpacing(m.group_spacing)

    # --------------------------------------------------------------- follow
    def refresh(self) -> None:
        """The current view's picture and the step's caption, now."""
        entry = self.views.current_entry()
        if entry is None or not self.isVisible():
            return
        self.view_id = entry.id
        self.caption.setText(self.runner.caption() if self.runner.active else entry.title)
        widget = self.views.export_widget(entry.id)
        self.picture = widget.grab()
        self._show_picture()

    def _show_picture(self) -> None:
        if self.picture is None or self.picture.isNull():
            self.mirror.clear()
            return
        size = self.mirror.size() * self.mirror.devicePixelRatioF()
        scaled = self.picture.scaled(size, Qt.AspectRatioMode.KeepAspectRatio,
                                     Qt.TransformationMode.SmoothTransformation)
        scaled.setDevicePixelRatio(self.mirror.devicePixelRatioF())
        self.mirror.setPixmap(scaled)

    # ---------------------------------------------------------------- place
    def place(self, main_screen: QScreen | None) -> None:
        """On a second screen, full screen; else a window half the main one's size beside it."""
        screen, second = choose_screen(QGuiApplication.screens(), main_screen)
        if screen is not None:
            self.setScreen(screen)
            self.setGeometry(screen.availableGeometry())
        if not second:
            self.resize(self.parentWidget().size() * SIZE_FRACTION)
            place_over(self, self.parentWidget())  # not at the screen's corner
        self._apply_tokens()
        if second:
            self.showFullScreen()
        else:
            self.showNormal()

    # --------------------------------------------------------------- events
    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802
        super().showEvent(event)
        self.timer.start()
        self.refresh()

    def hideEvent(self, event: QHideEvent) -> None:  # noqa: N802
        super().hideEvent(event)
        self.timer.stop()
        self.closed.emit()

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802
        super().closeEvent(event)
        self.timer.stop()

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._show_picture()


class AudienceController(QObject):
    """The View menu's checkable "Audience window" and the window it opens and closes."""

    def __init__(self, owner: QWidget, views: ViewDriver, runner: PresetRunner, view_menu: QMenu | None):
        super().__init__(owner)  # owner: the parent of its action and window; it closes when the owner does
        self.owner, self.views, self.runner = owner, views, runner
        self.window: AudienceWindow | None = None
        self.action = QAction("A&udience window", owner)
        self.action.setCheckable(True)
        tip = "The current view alone, with the step's caption, on the second screen (the controls stay here)"
        self.action.setToolTip(tip)
        self.action.setStatusTip(tip)
        self.action.toggled.connect(self.set_open)
        owner.addAction(self.action)
        if view_menu is not None:
            view_menu.addSeparator()
            view_menu.addAction(self.action)
        views.current_changed.connect(lambda *_args: self._follow())
        for event in (runner.events.started, runner.events.stopped):
            event.connect(lambda *_args: self._follow())
        runner.events.step_changed.connect(lambda _index: self._follow())
        owner.installEventFilter(self)  # the main window closes: so does the audience's

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if watched is self.owner and event.type() == QEvent.Type.Close and self.window is not None:
            self.window.hide()
        return False

    def set_open(self, on: bool) -> None:
        if on:
            if self.window is None:
                self.window = AudienceWindow(self.views, self.runner, self.owner)
                self.window.closed.connect(lambda: self.action.setChecked(False))
            self.window.place(self.owner.screen())
        elif self.window is not None and self.window.isVisible():
            self.window.hide()
        self.action.setChecked(on)

    def _follow(self) -> None:
        if self.window is not None and self.window.isVisible():
            self.window.refresh()
