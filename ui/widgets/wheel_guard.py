"""The mouse wheel scrolls forms; it changes a setting only in the control the user is working in.

Qt's spin boxes, combo boxes and sliders take every wheel event over them:
scrolling a long form with the pointer passing over the learning rate
changed 0.001 to 0.00094 without a click. One application-wide remedy,
installed once on the ``QApplication`` (``install_wheel_guard``):

- every spin box, combo box and slider gets ``Qt.StrongFocus`` when it is
  polished (tab or click gives focus, the wheel does not: Qt's default
  ``WheelFocus`` would hand it focus on the first notch);
- a wheel event over such a control without keyboard focus goes to the
  nearest enclosing scroll area that can move that way (its viewport, as if
  the pointer had been over the form's background); with focus, the control
  takes the wheel as before.

Scroll bars, lists, tables, text boxes and plots (pyqtgraph views zoom on the
wheel) are not these controls, so their wheel is untouched.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import (
    QAbstractScrollArea, QAbstractSlider, QAbstractSpinBox, QApplication, QComboBox, QScrollBar, QWidget,
)

GUARDED = (QAbstractSpinBox, QComboBox, QAbstractSlider)
_POLISH, _WHEEL = QEvent.Type.Polish, QEvent.Type.Wheel
_WHEEL_FOCUS, _STRONG_FOCUS = Qt.FocusPolicy.WheelFocus, Qt.FocusPolicy.StrongFocus
_PROPERTY = "lm_workbench_wheel_guard"


def is_guarded(widget: object) -> bool:
    """A control whose value the wheel changes (a scroll bar is not one: scrolling is what it is for)."""
    return isinstance(widget, GUARDED) and not isinstance(widget, QScrollBar)


def _has_focus(control: QWidget) -> bool:
    focus = QApplication.focusWidget()
    return focus is not None and (focus is control or control.isAncestorOf(focus))


def scroll_target(control: QWidget, vertical: bool) -> QAbstractScrollArea | None:
    """The nearest scroll area around ``control`` whose scroll bar in that direction can move (else the
    nearest scroll area at all; None outside any)."""
    first = None
    parent = control.parentWidget()
    while parent is not None:
        if isinstance(parent, QAbstractScrollArea) and not is_guarded(parent):
            first = first or parent
            bar = parent.verticalScrollBar() if vertical else parent.horizontalScrollBar()
            if bar.maximum() > bar.minimum():
                return parent
        parent = parent.parentWidget()
    return first


class WheelGuard(QObject):
    """The application's event filter (see the module doc)."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        kind = event.type()  # (every event of the application passes here: the common case returns at once)
        if kind == _POLISH:
            if is_guarded(watched) and watched.focusPolicy() == _WHEEL_FOCUS:
                watched.setFocusPolicy(_STRONG_FOCUS)
            return False
        if kind != _WHEEL or not is_guarded(watched) or _has_focus(watched):
            return False
        return self._scroll_instead(watched, event)

    @staticmethod
    def _scroll_instead(control: QWidget, event: QWheelEvent) -> bool:
        delta = event.angleDelta()
        vertical = abs(delta.y()) >= abs(delta.x())
        area = scroll_target(control, vertical)
        if area is None:
            event.ignore()
            return True  # outside any scroll area the wheel does nothing here
        viewport = area.viewport()
        global_pos = event.globalPosition()
        local = viewport.mapFromGlobal(global_pos)
        copy = QWheelEvent(local, global_pos, event.pixelDelta(), delta, event.buttons(), event.modifiers(),
                           event.phase(), event.inverted(), event.source())
        QApplication.sendEvent(viewport, copy)
        return True


def install_wheel_guard(app: QApplication | None = None) -> WheelGuard | None:
    """Install the guard on ``app`` (default: the running application) once; returns it (None without one).

    The filter sees only widgets polished from now on: the ones that exist already get the focus policy here."""
    app = app or QApplication.instance()
    if app is None:
        return None
    guard = app.property(_PROPERTY)
    if isinstance(guard, WheelGuard):
        return guard
    guard = WheelGuard(app)
    app.installEventFilter(guard)
    app.setProperty(_PROPERTY, guard)
    for widget in app.allWidgets():
        if is_guarded(widget) and widget.focusPolicy() == _WHEEL_FOCUS:
            widget.setFocusPolicy(_STRONG_FOCUS)
    return guard
