"""The Tokens tab: a one-line summary, a truncation banner and the token view."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QVBoxLayout, QWidget

from engine.tokens import TokenizedText
from ui import theme
from ui.tokens.token_view import TokenView
from ui.shell.view_context import ViewContext


def _swatch(colors: theme.Chip, label: str) -> str:
    fill, border, _ = colors
    return (
        f"<span style='background:{fill}; color:{border}; border:{theme.current().metrics.hairline}px solid {border}'>"
        "&nbsp;■&nbsp;</span>"
        f"&nbsp;{label}"
    )


def legend() -> str:
    """What the chip colours mean, in the current tokens' colours."""
    c = theme.current().colours
    return " &nbsp;&nbsp; ".join(
        [_swatch(c.segment_a, "text"), _swatch(c.segment_b, "pair"), _swatch(c.special_token, "special")]
    )


class TokenPanel(QWidget):
    def __init__(self, ctx: ViewContext, parent: QWidget | None = None):
        super().__init__(parent)
        ctx.tokens_changed.connect(self.show_tokens)  # the window tokenizes the text box for every view
        self.view = TokenView()
        self.summary = QLabel()
        self.summary.setObjectName("summary")
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.banner = QLabel()
        self.banner.setObjectName("truncationBanner")
        self.banner.setWordWrap(True)
        self._restyle()
        theme.follow(self, self._restyle)
        self.banner.hide()
        scroll = QScrollArea()
        scroll.setWidget(self.view)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll = scroll
        layout = QVBoxLayout(self)
        theme.bind(layout, lambda w, m: w.setContentsMargins(*m.view_margins))
        theme.bind(layout, lambda w, m: w.setSpacing(m.section_spacing))
        layout.addWidget(self.summary)
        layout.addWidget(self.banner)
        layout.addWidget(scroll, 1)
        self.set_tokenized(None)

    def set_tokenized(self, tt: TokenizedText | None) -> None:
        self.view.set_tokenized(tt)
        if tt is None or not len(tt):
            self._counts = ""
            self.summary.setText(legend())
            self.banner.hide()
            return
        words = sum(1 for g in tt.word_groups() if not tt.special[g[0]])
        special = sum(tt.special)
        split = sum(1 for g in tt.word_groups() if len(g) > 1)
        counts = f"<b>{len(tt)}</b> tokens &nbsp;·&nbsp; {words} words ({split} split into subwords)"
        if special:
            counts += f" &nbsp;·&nbsp; {special} special"
        self._counts = counts
        self.summary.setText(f"{counts} &nbsp;&nbsp;&nbsp; {legend()}")
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

    def _restyle(self) -> None:
        t = theme.current()
        padding = t.metrics.banner_padding
        self.banner.setStyleSheet(theme.banner_css("QLabel#truncationBanner", t.colours.warning, padding))
        counts = getattr(self, "_counts", "")
        self.summary.setText(f"{counts} &nbsp;&nbsp;&nbsp; {legend()}" if counts else legend())

    def banner_text(self) -> str | None:
        return self.banner.text() if not self.banner.isHidden() else None
