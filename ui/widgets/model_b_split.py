"""Model B beside model A (Compare): the one B column every view that shows B uses, labelled A | B.

``ModelBSplit(widget_a, widget_b)`` is a horizontal splitter of two columns, each a title line ("A: bert-tiny")
over its widget; B's column also has the one line saying why B shows nothing (``show_b_reason``), above B's
widget. While no model B is compared the B column is hidden and A's title too, so the view looks as it does
alone. A view that shows B declares it (``lm_workbench.ui.view_kit.view_abilities.ModelBView``: ``model_b_split()``).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSplitter, QWidget

from lm_workbench.ui.widgets.elided_label import ElidedLabel
from lm_workbench.ui.widgets.controls import label
from lm_workbench.ui.widgets.boxes import flush_column


def _column(title: QLabel, widget: QWidget, reason: QLabel | None = None) -> QWidget:
    box = QWidget()
    above = (title,) if reason is None else (title, reason)
    flush_column(box, *above, (widget, 1), spacing="row_spacing")
    return box


class ModelBSplit(QSplitter):
    def __init__(self, widget_a: QWidget, widget_b: QWidget, parent: QWidget | None = None):
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.setObjectName("abSplit")
        self.title_a, self.title_b = ElidedLabel(), ElidedLabel()  # never hold a column wider (F5, long names)
        self.title_a.setObjectName("titleA")
        self.title_b.setObjectName("titleB")
        self.reason_b = label(name="summary", wrap=True)  # why B shows nothing (a one-line reason), else hidden
        self.reason_b.hide()
        self.column_a = _column(self.title_a, widget_a)
        self.column_b = _column(self.title_b, widget_b, self.reason_b)
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

    def show_b_reason(self, reason: str) -> None:
        """The one line saying why B shows nothing ("": B shows its result, the line hidden)."""
        self.reason_b.setText(reason)
        self.reason_b.setVisible(bool(reason))

    def b_reason(self) -> str:
        """The line shown in place of B's result ("" when B shows one)."""
        return self.reason_b.text() if not self.reason_b.isHidden() else ""
