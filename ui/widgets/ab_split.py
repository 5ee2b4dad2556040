"""Two models side by side: a view's display for model A and a second one for model B, labelled A | B.

``ABSplit(widget_a, widget_b)`` is a horizontal splitter of two columns, each a title line ("A: bert-tiny")
over its widget. While no model B is compared the B column is hidden and A's title too, so the view looks as
it does alone.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSplitter, QVBoxLayout, QWidget

from ui import theme


def _column(title: QLabel, widget: QWidget) -> QWidget:
    box = QWidget()
    column = QVBoxLayout(box)
    column.setContentsMargins(0, 0, 0, 0)
    theme.bind(column, lambda w, m: w.setSpacing(m.row_spacing))
    column.addWidget(title)
    column.addWidget(widget, 1)
    return box


class ABSplit(QSplitter):
    def __init__(self, widget_a: QWidget, widget_b: QWidget, parent: QWidget | None = None):
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.setObjectName("abSplit")
        self.title_a, self.title_b = QLabel(), QLabel()
        self.title_a.setObjectName("titleA")
        self.title_b.setObjectName("titleB")
        for title in (self.title_a, self.title_b):
            title.setTextFormat(Qt.TextFormat.PlainText)
        self.column_a, self.column_b = _column(self.title_a, widget_a), _column(self.title_b, widget_b)
        self.addWidget(self.column_a)
        self.addWidget(self.column_b)
        self.setChildrenCollapsible(False)
        self.set_models(None, None)

    def set_models(self, name_a: str | None, name_b: str | None) -> None:
        """Show the B column titled ``name_b`` (A's titled ``name_a``), or hide it when ``name_b`` is None."""
        comparing = name_b is not None
        self.title_a.setText(f"A: {name_a or ''}")
        self.title_b.setText(f"B: {name_b or ''}")
        self.title_a.setVisible(comparing)
        self.column_b.setVisible(comparing)
        if comparing:
            half = max(self.width() // 2, 1)
            self.setSizes([half, half])

    def comparing(self) -> bool:
        return not self.column_b.isHidden()
