"""The controls every view builds the same way, in one call each: a button wired to its slot, a spin box with its
range and value, a combo box with its items, a line edit with its placeholder, a label with its style name, a
progress bar that starts empty. Each returns the plain Qt widget, so a view keeps it as an attribute as before."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QLabel, QLineEdit, QProgressBar, QPushButton, QSpinBox


def button(text: str, *, tip: str | None = None, clicked: Callable[..., Any] | None = None, enabled: bool = True,
           default: bool = False) -> QPushButton:
    """A push button: ``clicked`` connected to its ``clicked`` signal (the slot gets the checked flag, as Qt
    sends it), disabled when ``enabled`` is false, the dialog's default button when ``default``."""
    widget = QPushButton(text)
    if tip is not None:
        widget.setToolTip(tip)
    if clicked is not None:
        widget.clicked.connect(clicked)
    widget.setEnabled(enabled)
    if default:
        widget.setDefault(True)
    return widget


def _numbers(widget: Any, low: Any, high: Any, value: Any, tip: str | None, prefix: str | None,
             suffix: str | None, step: Any) -> Any:
    widget.setRange(low, high)
    if step is not None:
        widget.setSingleStep(step)
    if prefix is not None:
        widget.setPrefix(prefix)
    if suffix is not None:
        widget.setSuffix(suffix)
    widget.setValue(value)
    if tip is not None:
        widget.setToolTip(tip)
    return widget


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
    widget = QDoubleSpinBox()
    if decimals is not None:
        widget.setDecimals(decimals)
    return _numbers(widget, low, high, value, tip, prefix, suffix, step)


def combo_box(items: Iterable[str | tuple[str, Any]] = (), *, tip: str | None = None) -> QComboBox:
    """A combo box with ``items``: a text, or ``(text, data)`` whose data ``currentData()`` gives back."""
    widget = QComboBox()
    for item in items:
        if isinstance(item, tuple):
            widget.addItem(item[0], item[1])
        else:
            widget.addItem(item)
    if tip is not None:
        widget.setToolTip(tip)
    return widget


def line_edit(placeholder: str = "", *, text: str = "", tip: str | None = None) -> QLineEdit:
    """A one-line text field with grey ``placeholder`` text while it is empty."""
    widget = QLineEdit(text)
    widget.setPlaceholderText(placeholder)
    if tip is not None:
        widget.setToolTip(tip)
    return widget


def label(text: str = "", *, name: str | None = None, wrap: bool = False, tip: str | None = None) -> QLabel:
    """A label styled by the theme's rule for ``name`` (its object name: ``summary``, ``sectionTitle``...), word
    wrapped when ``wrap``."""
    widget = QLabel(text)
    if name is not None:
        widget.setObjectName(name)
    widget.setWordWrap(wrap)
    if tip is not None:
        widget.setToolTip(tip)
    return widget


def progress_bar(*, text_visible: bool = True) -> QProgressBar:
    """A progress bar at 0 of 1 (empty, not busy) until the first progress report sets its range."""
    widget = QProgressBar()
    widget.setRange(0, 1)
    widget.setValue(0)
    widget.setTextVisible(text_visible)
    return widget
