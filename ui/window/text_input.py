"""The sentence box and the optional pair line, with a typing debounce.

``edited`` is emitted once typing has paused for ``DEBOUNCE_MS``, so views
recompute once per pause rather than on every keystroke.
"""

from __future__ import annotations

from PySide6.QtCore import QTimer, Signal
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QLabel, QLineEdit, QPlainTextEdit, QVBoxLayout, QWidget

from lm_workbench.ui import theme

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
        self.pair_edit = QLineEdit()
        self.pair_edit.setObjectName("pair")
        self.pair_edit.setPlaceholderText("Optional second sentence (a sentence pair, e.g. for next-sentence tasks)")
        self.pair_edit.setClearButtonEnabled(True)
        title = QLabel("Text")
        title.setObjectName("sectionTitle")
        layout = QVBoxLayout(self)
        # inside the current tab, above its view: the view's side margins, none below
        theme.bind(layout, lambda w, m: w.setContentsMargins(m.view_margins[0], m.view_margins[1], m.view_margins[2], 0))
        theme.bind(layout, lambda w, m: w.setSpacing(m.row_spacing))
        layout.addWidget(title)
        layout.addWidget(self.editor)
        layout.addWidget(self.pair_edit)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self.edited)
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
