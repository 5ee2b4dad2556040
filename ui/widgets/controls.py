"""The controls every view builds the same way, in one call each: a button wired to its slot, a spin box with its
range and value, a combo box with its items, a line edit with its placeholder, a label with its style name, a
progress bar that starts empty, and the status bar's slim one; tool buttons (a flat text button, the "Export" kind
that opens its menu on a click). Each returns the plain Qt widget, so a view keeps it as an attribute as before."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from PySide6.QtWidgets import (
    QComboBox, QDoubleSpinBox, QLabel, QLineEdit, QMenu, QProgressBar, QPushButton, QSpinBox, QToolButton,
)

from lm_workbench.ui import theme


def _given(widget: Any, *, clicked: Callable[..., Any] | None = None, **setters: Any) -> Any:
    """``widget`` with each given (not None) property set through its Qt setter (``toolTip="..."`` calls
    ``setToolTip``, in the order given) and ``clicked`` connected to its ``clicked`` signal. Returns ``widget``."""
    for name, value in setters.items():
        if value is not None:
            getattr(widget, "set" + name[0].upper() + name[1:])(value)
    if clicked is not None:
        widget.clicked.connect(clicked)
    return widget


def button(text: str, *, tip: str | None = None, clicked: Callable[..., Any] | None = None, enabled: bool = True,
           default: bool = False) -> QPushButton:
    """A push button: ``clicked`` connected to its ``clicked`` signal (the slot gets the checked flag, as Qt
    sends it), disabled when ``enabled`` is false, the dialog's default button when ``default``."""
    widget = _given(QPushButton(text), toolTip=tip, clicked=clicked)
    widget.setEnabled(enabled)
    if default:
        widget.setDefault(True)
    return widget


def _numbers(widget: Any, low: Any, high: Any, value: Any, tip: str | None, prefix: str | None,
             suffix: str | None, step: Any) -> Any:
    widget.setRange(low, high)
    _given(widget, singleStep=step, prefix=prefix, suffix=suffix)
    widget.setValue(value)
    return _given(widget, toolTip=tip)


def spin_box(low: int, high: int, value: int, *, tip: str | None = None, prefix: str | None = None,
             suffix: str | None = None, step: int | None = None) -> QSpinBox:
    """An integer spin box over ``[low, high]`` showing ``value`` (range set first, so the value is not clamped
    to Qt's default 0-99)."""
    return _numbers(QSpinBox(), low, high, value, tip, prefix, suffix, step)


def double_spin_box(low: float, high: float, value: float, *, decimals: int | None = None, tip: str | None = None,
                    prefix: str | None = None, suffix: str | None = None,
                    step: float | None = None) -> QDoubleSpinBox:
    """A decimal spin box over ``[low, high]`` showing ``value`` with ``decimals`` places (Qt's 2 when None;
    set before the range and value, which Qt rounds to it)."""
    return _numbers(_given(QDoubleSpinBox(), decimals=decimals), low, high, value, tip, prefix, suffix, step)


def combo_box(items: Iterable[str | tuple[str, Any]] = (), *, tip: str | None = None) -> QComboBox:
    """A combo box with ``items``: a text, or ``(text, data)`` whose data ``currentData()`` gives back."""
    widget = QComboBox()
    for item in items:
        if isinstance(item, tuple):
            widget.addItem(item[0], item[1])
        else:
            widget.addItem(item)
    return _given(widget, toolTip=tip)


def line_edit(placeholder: str = "", *, text: str = "", tip: str | None = None) -> QLineEdit:
    """A one-line text field with grey ``placeholder`` text while it is empty."""
    return _given(QLineEdit(text), placeholderText=placeholder, toolTip=tip)


def label(text: str = "", *, name: str | None = None, wrap: bool = False, tip: str | None = None) -> QLabel:
    """A label styled by the theme's rule for ``name`` (its object name: ``summary``, ``sectionTitle``...), word
    wrapped when ``wrap``."""
    return _given(QLabel(text), objectName=name, wordWrap=wrap, toolTip=tip)


def progress_bar(*, text_visible: bool = True) -> QProgressBar:
    """A progress bar at 0 of 1 (empty, not busy) until the first progress report sets its range."""
    widget = QProgressBar()
    widget.setRange(0, 1)
    widget.setValue(0)
    widget.setTextVisible(text_visible)
    return widget


def tool_button(text: str, *, tip: str | None = None, clicked: Callable[..., Any] | None = None) -> QToolButton:
    """A tool button showing ``text``, ``clicked`` connected to its ``clicked`` signal (as
    ``widget.clicked.connect(clicked)`` would)."""
    return _given(QToolButton(), text=text, toolTip=tip, clicked=clicked)


def menu_button(text: str, menu: QMenu | None = None, *, tip: str | None = None) -> QToolButton:
    """A tool button showing ``text`` that pops up ``menu`` at once when clicked (``InstantPopup``); a view that
    builds the menu later gives it with ``setMenu``."""
    widget = tool_button(text, tip=tip)
    widget.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
    return _given(widget, menu=menu)


def slim_progress_bar() -> QProgressBar:
    """A ``QProgressBar`` without its text, as wide and as high as the theme's status-bar bar
    (``status_progress_w``, ``status_progress_h``); Qt's range and value until the caller sets them."""
    bar = QProgressBar()
    theme.bind(bar, lambda w, m: w.setFixedWidth(m.status_progress_w))
    theme.bind(bar, lambda w, m: w.setMaximumHeight(m.status_progress_h))
    bar.setTextVisible(False)
    return bar
