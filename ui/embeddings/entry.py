"""The embeddings view's registry entry: its tab, About text, factory, shortcut and inputs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ui.embeddings import about
from ui.shell.view_entry import ViewEntry

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from ui.shell.view_context import ViewContext


def make_view(ctx: ViewContext) -> QWidget:
    from ui.embeddings.explorer_view import EmbeddingExplorerView  # imported when the tab is built, not with the registry

    return EmbeddingExplorerView(ctx)


ENTRY = ViewEntry('embeddings', about.TITLE, about.HTML, make_view, 'Ctrl+6', frozenset({"corpus"}),
                   preset_settings=frozenset({"words", "layer", "query", "k", "same_word"}))
