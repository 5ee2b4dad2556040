"""An inline message bar: errors and notices without a modal dialog.

It sits at the top of the central area, red for errors and blue for
notices, with a close button. A message remembers its ``source`` (e.g.
"load" or "tokenize") so a later success of the same kind can clear it
without wiping an unrelated message.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QStyle, QToolButton, QWidget

from lm_workbench.ui import theme
from lm_workbench.ui.widgets.boxes import themed

_ICONS = {
    "error": QStyle.StandardPixmap.SP_MessageBoxCritical,
    "info": QStyle.StandardPixmap.SP_MessageBoxInformation,
    "warning": QStyle.StandardPixmap.SP_MessageBoxWarning,
}


class MessageBar(QFrame):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("messageBar")
        self._level = ""
        self._source: str | None = None
        self._icon = QLabel()
        self._icon.setFixedSize(theme.current().metrics.message_icon, theme.current().metrics.message_icon)
        self._text = QLabel()
        self._text.setWordWrap(True)
        self._text.setTextFormat(Qt.TextFormat.PlainText)
        self._text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._close = QToolButton()
        self._close.setText("✕")
        self._close.setToolTip("Dismiss")
        self._close.setAutoRaise(True)
        self._close.clicked.connect(self.dismiss)
        row = themed(QHBoxLayout(self), margins="message_margins", spacing="group_spacing")
        row.addWidget(self._icon, 0, Qt.AlignmentFlag.AlignTop)
        row.addWidget(self._text, 1)
        row.addWidget(self._close, 0, Qt.AlignmentFlag.AlignTop)
        theme.follow(self, self._restyle)
        self.hide()

    # ----------------------------------------------------------------- API
    def show_error(self, text: str, source: str | None = None) -> None:
        self._show("error", text, source)

    def show_info(self, text: str, source: str | None = None) -> None:
        self._show("info", text, source)

    def show_warning(self, text: str, source: str | None = None) -> None:
        self._show("warning", text, source)

    def show_message(self, text: str, level: str = "info", source: str | None = None) -> None:
        """``level`` is info, warning or error."""
        {"error": self.show_error, "warning": self.show_warning}.get(level, self.show_info)(text, source)

    def dismiss(self) -> None:
        self._level, self._source = "", None
        self._text.clear()
        self.hide()

    def clear(self, source: str | None = None) -> None:
        """Hide the message; with ``source``, only if it came from there."""
        if source is None or source == self._source:
            self.dismiss()

    def text(self) -> str:
        return self._text.text()

    def level(self) -> str:
        """"error", "info", "warning", or "" when nothing is shown."""
        return self._level

    def source(self) -> str | None:
        return self._source

    # -------------------------------------------------------------- helpers
    def _show(self, level: str, text: str, source: str | None) -> None:
        self._level, self._source = level, source
        self._restyle()
        self._text.setText(text)
        self._text.setToolTip(text)
        self.show()

    def _restyle(self) -> None:
        if not self._level:
            return
        t = theme.current()
        fill, border, ink = t.colours.message(self._level)
        self.setStyleSheet(
            f"QFrame#messageBar {{ background: {fill}; border: {t.metrics.hairline}px solid {border};"
            f" border-radius: {t.metrics.message_radius}px; }}"
            f"QFrame#messageBar QLabel {{ color: {ink}; background: transparent; border: none; }}"
            f"QFrame#messageBar QToolButton {{ color: {ink}; border: none; }}"
        )
        icon_px = t.metrics.message_icon
        self._icon.setFixedSize(icon_px, icon_px)
        self._icon.setPixmap(self.style().standardIcon(_ICONS[self._level]).pixmap(icon_px, icon_px))
