"""The inline line a view uses for hints and for the engine's one-line messages (e.g. a missing head)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from lm_workbench.ui import theme


class Notice(QLabel):
    """A one-line (wrapping) hint or message inside a view."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("viewNotice")
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._level = ""
        theme.follow(self, self._restyle)  # a token swap re-colours a shown notice
        self.hide()

    def show_message(self, text: str, level: str = "info") -> None:
        self._level = level
        self._restyle()
        self.setText(text)
        self.show()

    def clear_message(self) -> None:
        self._level = ""
        self.setText("")
        self.hide()

    def level(self) -> str:
        return self._level if not self.isHidden() else ""

    def _restyle(self) -> None:
        t = theme.current()
        chip = t.colours.message(self._level)
        self.setStyleSheet(theme.banner_css("QLabel#viewNotice", chip, t.metrics.notice_padding))
