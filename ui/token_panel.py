"""The Tokens tab: a one-line summary, a truncation banner and the token view."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QVBoxLayout, QWidget

from engine.tokens import TokenizedText
from ui import theme
from ui.token_view import TokenView


def _swatch(colors: tuple[str, str, str], label: str) -> str:
    fill, border, _ = colors
    return (
        f"<span style='background:{fill}; color:{border}; border:1px solid {border}'>&nbsp;■&nbsp;</span>"
        f"&nbsp;{label}"
    )


LEGEND = " &nbsp;&nbsp; ".join(
    [_swatch(theme.SEGMENT_A, "text"), _swatch(theme.SEGMENT_B, "pair"), _swatch(theme.SPECIAL, "special")]
)


class TokenPanel(QWidget):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.view = TokenView()
        self.summary = QLabel()
        self.summary.setObjectName("summary")
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.banner = QLabel()
        self.banner.setObjectName("truncationBanner")
        self.banner.setWordWrap(True)
        fill, border, ink = theme.WARNING
        self.banner.setStyleSheet(
            f"QLabel#truncationBanner {{ background: {fill}; border: 1px solid {border}; color: {ink};"
            " border-radius: 4px; padding: 5px 8px; }"
        )
        self.banner.hide()
        scroll = QScrollArea()
        scroll.setWidget(self.view)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll = scroll
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 4)
        layout.setSpacing(6)
        layout.addWidget(self.summary)
        layout.addWidget(self.banner)
        layout.addWidget(scroll, 1)
        self.set_tokenized(None)

    def set_tokenized(self, tt: TokenizedText | None) -> None:
        self.view.set_tokenized(tt)
        if tt is None or not len(tt):
            self.summary.setText(LEGEND)
            self.banner.hide()
            return
        words = sum(1 for g in tt.word_groups() if not tt.special[g[0]])
        special = sum(tt.special)
        split = sum(1 for g in tt.word_groups() if len(g) > 1)
        counts = f"<b>{len(tt)}</b> tokens &nbsp;·&nbsp; {words} words ({split} split into subwords)"
        if special:
            counts += f" &nbsp;·&nbsp; {special} special"
        self.summary.setText(f"{counts} &nbsp;&nbsp;&nbsp; {LEGEND}")
        message = tt.truncation_message
        self.banner.setVisible(bool(message))
        if message:
            self.banner.setText("⚠ Truncated: " + message + ".")

    def show_hint(self, text: str) -> None:
        self.set_tokenized(None)
        self.view.show_hint(text)

    def show_tokens(self, value: TokenizedText | str) -> None:
        """The window's tokens of the text box, or a hint (a str) when there are none."""
        if isinstance(value, str):
            self.show_hint(value)
        else:
            self.set_tokenized(value)

    def export_widget(self) -> QWidget:
        return self.view

    def banner_text(self) -> str | None:
        return self.banner.text() if not self.banner.isHidden() else None
