"""The chosen method's row in He et al.'s unified view, under the block diagram, formula typeset.

Qt rich text: the formula in a larger size with sub- and superscripts, then Δh's functional form, the
insertion form, the representation modified and the composition function, and the row's note.
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from lm_workbench.ui import theme


def row_html(row: Any, title: str = "") -> str:
    """A ``UnifiedRow`` as rich text (or a line saying the method declares none)."""
    if row is None:
        return f"<p>{html.escape(title)} declares no row in He et al.'s unified view.</p>"
    e = html.escape
    cells = (("Δh", row.functional_form), ("insertion", row.insertion), ("modifies", row.representation),
             ("composition", row.composition))
    facts = " &nbsp;·&nbsp; ".join(f"<b>{name}</b> {e(value)}" for name, value in cells)
    note = f"<br><i>{e(row.note)}</i>" if row.note else ""
    return (f"<p><b>He et al. (2022)</b>, unified view: <span style='font-size:large'>{row.typeset()}</span></p>"
            f"<p>{facts}{note}</p>")


class UnifiedRowLabel(QLabel):
    """Shows one method's row; ``row`` is the ``UnifiedRow`` shown (None before a method is chosen)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.row: Any = None
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setWordWrap(True)
        self.setObjectName("unifiedRow")
        theme.bind(self, lambda w, m: w.setContentsMargins(0, m.section_spacing // 2, 0, 0))

    def show_row(self, row: Any, title: str = "") -> None:
        self.row = row
        self.setText(row_html(row, title))
