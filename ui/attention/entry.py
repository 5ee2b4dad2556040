"""The attention view's registry entry: its tab, About text, factory, shortcut and inputs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ui.attention import about
from ui.shell.view_entry import ViewEntry

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from ui.shell.view_context import ViewContext


def make_view(ctx: ViewContext) -> QWidget:
    from ui.attention.attention_view import AttentionView  # imported when the tab is built, not with the registry

    return AttentionView()


ENTRY = ViewEntry('attention', about.TITLE, about.HTML, make_view, 'Ctrl+2', frozenset({"text", "pair"}),
                   preset_settings=frozenset({"layer", "heads", "hide_special", "threshold", "step_by_step"}))
