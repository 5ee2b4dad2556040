"""The prompting view's registry entry: its tab, About text, factory, shortcut and inputs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ui.prompting import about
from ui.shell.view_entry import ViewEntry

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from ui.shell.view_context import ViewContext


def make_view(ctx: ViewContext) -> QWidget:
    from ui.prompting.prompting_view import PromptingView  # imported when the tab is built, not with the registry

    return PromptingView(ctx)


ENTRY = ViewEntry('prompting', about.TITLE, about.HTML, make_view, 'Ctrl+9', frozenset({"corpus"}),
                   preset_settings=frozenset({"prompt_set", "mode", "template", "verbalizer", "x", "x2", "page", "score"}))
