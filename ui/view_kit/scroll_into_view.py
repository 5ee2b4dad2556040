"""Scroll what a view talks about into sight: a lecture step's caption names the Explain strip or the heatmap,
which at 1280 x 720 with F5 lie below the fold of the tab's scroll area."""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QScrollArea, QWidget


def scroll_into_view(widget: QWidget, *, later: bool = True) -> None:
    """Every scroll area around ``widget`` (the tab's, a panel's) scrolls to show as much of it as fits, its top
    first. ``later``: after the layouts that the new content starts have run (the default)."""
    if later:  # once the layouts the new content starts have run, and again when late ones (wrapping) settle
        for delay in (0, 150):
            QTimer.singleShot(delay, widget, lambda: scroll_into_view(widget, later=False))
        return
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QScrollArea) and parent.widget() is not None and parent.widget().isAncestorOf(widget):
            parent.ensureWidgetVisible(widget, 0, 0)
        parent = parent.parentWidget()
