"""The Tokens tab: a one-line summary, a truncation banner and the token view.

The tab's state is a Qt-free ``lm_workbench.tokens.state.TokensState``; the panel draws it. When a model B is compared (the model panel's "Compare with…") the text's tokens under B's tokenizer show
beside A's (A | B), tokenized off the Qt thread as the window tokenizes for A.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from lm_workbench.engine.tokens import TokenizedText
from lm_workbench.ui import theme
from lm_workbench.ui.tokens.token_view import TokenView
from lm_workbench.ui.view_kit.model_label import spec_label
from lm_workbench.ui.view_kit.view_context import ViewContext
from lm_workbench.ui.widgets.boxes import column
from lm_workbench.ui.widgets.controls import label
from lm_workbench.ui.widgets.model_b_split import ModelBSplit
from lm_workbench.ui.widgets.scroll_area import scroll_area
from lm_workbench.compare.view_tasks import tokenize_b
from lm_workbench.tokens.state import TokensState


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
    """A view of a ``lm_workbench.tokens.state.TokensState``: the panel writes the window's tokens into the state
    and draws what the state's events say."""

    def __init__(self, ctx: ViewContext, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = TokensState()
        ctx.tokens_changed.connect(self.show_tokens)  # the window tokenizes the text box for every view
        ctx.model_b_changed.connect(lambda _b: self._update_b())
        self.ctx = ctx
        self.view = TokenView()
        self.view_b = TokenView()  # model B's tokens of the same text, while comparing
        self.summary = label(name="summary")
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.banner = label(name="truncationBanner", wrap=True)
        self._restyle()
        theme.follow(self, self._restyle)
        self.banner.hide()
        self.scroll = scroll_area(self.view, frame=False, sideways=False)
        self.scroll_b = scroll_area(self.view_b, frame=False, sideways=False)
        self.split = ModelBSplit(self.scroll, self.scroll_b)
        column(self, self.summary, self.banner, (self.split, 1))
        self.state.events.tokens_changed.connect(self._show_tokens)
        self.state.events.b_changed.connect(self._show_b)
        self.set_tokenized(None)

    def set_tokenized(self, tt: TokenizedText | None) -> None:
        self.state.set_tokenized(tt)

    def show_hint(self, text: str) -> None:
        self.state.show_hint(text)

    def show_tokens(self, value: TokenizedText | str) -> None:
        """The window's tokens of the text box, or a hint (a str) when there are none."""
        if isinstance(value, str):
            self.show_hint(value)
        else:
            self.set_tokenized(value)

    def model_b_split(self) -> ModelBSplit:
        return self.split

    def export_widget(self) -> QWidget:
        return self.split if self.split.comparing() else self.view

    # ------------------------------------------------------------- showing
    def _show_tokens(self) -> None:
        st = self.state
        if st.hint:
            self.view.show_hint(st.hint)
        else:
            self.view.set_tokenized(st.tokenized)
        self._show_summary()
        banner = st.banner()
        self.banner.setVisible(banner is not None)
        if banner is not None:
            self.banner.setText(banner)
        self._update_b()

    def _counts_html(self) -> str:
        c = self.state.counts()
        if c is None:
            return ""
        counts = f"<b>{c.tokens}</b> tokens &nbsp;·&nbsp; {c.words} words ({c.split} split into subwords)"
        return counts + (f" &nbsp;·&nbsp; {c.special} special" if c.special else "")

    # -------------------------------------------------------------- model B
    def _update_b(self) -> None:
        """Model B's tokens of A's text (in the background), or the B column hidden when not comparing."""
        b, a = self.ctx.model_b, self.ctx.loaded
        self.split.set_models(spec_label(a.info.spec) if a is not None else "",
                              spec_label(b.info.spec) if b is not None else None)
        if b is None:
            self.view_b.show_hint("")
            return
        asked = self.state.b_request()
        if asked is None:
            self.view_b.show_hint(self.view.hint() or "")
            return
        text, pair = asked
        self.view_b.show_hint("Tokenizing with model B…")
        self.ctx.jobs.run(lambda cancel: tokenize_b(b, text, pair, cancel), self.state.set_b, step="tokens-b",
                          when_idle=True, on_cancelled=self._update_b)

    def _show_b(self) -> None:
        tt = self.state.tokenized_b
        if tt is None:
            return
        self.view_b.set_tokenized(tt)
        b = self.ctx.model_b
        if b is not None:
            self.split.title_b.setText(self.state.b_title(spec_label(b.info.spec)))

    def _restyle(self) -> None:
        t = theme.current()
        padding = t.metrics.banner_padding
        self.banner.setStyleSheet(theme.banner_css("QLabel#truncationBanner", t.colours.warning, padding))
        self._show_summary()

    def _show_summary(self) -> None:
        counts = self._counts_html() if hasattr(self, "state") else ""
        self.summary.setText(f"{counts} &nbsp;&nbsp;&nbsp; {legend()}" if counts else legend())

    def banner_text(self) -> str | None:
        return self.banner.text() if not self.banner.isHidden() else None
