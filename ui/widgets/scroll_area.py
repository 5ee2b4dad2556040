"""A scroll area in one call: the widget inside grows with the area (``widgetResizable``) and scrolls when it is
larger; no frame and no sideways scroll bar where a view asks. Returns the plain ``QScrollArea``."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QScrollArea, QWidget


def scroll_area(widget: QWidget | None = None, *, frame: bool = True, sideways: bool = True) -> QScrollArea:
    """A resizable scroll area around ``widget`` (set later with ``setWidget`` when None): without its frame
    unless ``frame``, without a horizontal scroll bar unless ``sideways`` (the widget then fits the width)."""
    area = QScrollArea()
    area.setWidgetResizable(True)
    if not frame:
        area.setFrameShape(QFrame.Shape.NoFrame)
    if not sideways:
        area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    if widget is not None:
        area.setWidget(widget)
    return area
