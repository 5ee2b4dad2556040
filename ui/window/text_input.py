"""The sentence box and the optional pair line, with a typing debounce.

``edited`` is emitted once typing has paused for ``DEBOUNCE_MS``, so views
recompute once per pause rather than on every keystroke.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QPlainTextEdit, QVBoxLayout, QWidget

from lm_workbench.ui import theme
from lm_workbench.ui.widgets.boxes import add_items, themed
from lm_workbench.ui.widgets.controls import label, line_edit
from lm_workbench.ui.widgets.interval_timer import interval_timer

DEBOUNCE_MS = 150


class TextInputPanel(QWidget):
    edited = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.editor = QPlainTextEdit()
        self.editor.setObjectName("sentence")
        self.editor.setPlaceholderText("Type or paste a sentence…")
        self.editor.setTabChangesFocus(True)
        theme.bind(self, lambda w, m: w.editor.setFixedHeight(
            int(QFontMetrics(w.editor.font()).lineSpacing() * m.text_line_h) + m.text_box_pad))
        self.pair_edit = line_edit("Optional second sentence (a sentence pair, e.g. for next-sentence tasks)")
        self.pair_edit.setObjectName("pair")
        self.pair_edit.setClearButtonEnabled(True)
        layout = themed(QVBoxLayout(self), spacing="row_spacing")
        # inside the current tab, above its view: the view's side margins, none below
        theme.bind(layout, lambda w, m: w.setContentsMargins(m.view_margins[0], m.view_margins[1], m.view_margins[2], 0))
        add_items(layout, (label("Text", name="sectionTitle"), self.editor, self.pair_edit))
        self._timer = interval_timer(self, DEBOUNCE_MS, self.edited, single_shot=True)
        self.editor.textChanged.connect(self._timer.start)
        self.pair_edit.textChanged.connect(self._timer.start)

    def set_pair_visible(self, visible: bool) -> None:
        """Show the pair line only for views that read a sentence pair (its text is kept while hidden)."""
        self.pair_edit.setVisible(visible)

    def text(self) -> str:
        return self.editor.toPlainText()

    def pair(self) -> str | None:
        """The pair sentence, or None when the line is blank."""
        value = self.pair_edit.text()
        return value if value.strip() else None

    def set_text(self, text: str, pair: str | None = None) -> None:
        self.editor.setPlainText(text)
        self.pair_edit.setText(pair or "")

    def pending(self) -> bool:
        """True while an edit waits for the debounce to fire."""
        return self._timer.isActive()
