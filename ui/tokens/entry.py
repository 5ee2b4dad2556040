"""The tokens view's registry entry: its tab, About text, factory, shortcut and inputs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ui.tokens import about
from ui.shell.view_entry import ViewEntry

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from ui.shell.view_context import ViewContext


def make_view(ctx: ViewContext) -> QWidget:
    from ui.tokens.token_panel import TokenPanel  # imported when the tab is built, not with the registry

    panel = TokenPanel()
    ctx.tokens_changed.connect(panel.show_tokens)  # the window tokenizes the text box for every view
    return panel


ENTRY = ViewEntry('tokens', about.TITLE, about.HTML, make_view, 'Ctrl+1', frozenset({"text", "pair"}))
