"""The finetune view's registry entry: its tab, About text, factory, shortcut and inputs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ui.finetune import about
from ui.shell.view_entry import ViewEntry

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from ui.shell.view_context import ViewContext


def make_view(ctx: ViewContext) -> QWidget:
    from ui.finetune.finetune_view import FineTuneView  # imported when the tab is built, not with the registry

    return FineTuneView(ctx)


ENTRY = ViewEntry('finetune', about.TITLE, about.HTML, make_view, 'Ctrl+8', frozenset({"corpus"}),
                   preset_settings=frozenset({"task", "epochs", "seed", "methods", "show"}))
