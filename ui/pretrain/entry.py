"""The pretrain view's registry entry: its tab, About text, factory, shortcut and inputs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ui.pretrain import about
from ui.shell.view_entry import ViewEntry

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from ui.shell.view_context import ViewContext


def make_view(ctx: ViewContext) -> QWidget:
    from ui.pretrain.pretrain_view import TrainingView  # imported when the tab is built, not with the registry

    return TrainingView(ctx.run_services, open_model=ctx.open_model, register_model=ctx.register_model)


ENTRY = ViewEntry('pretrain', about.TITLE, about.HTML, make_view, 'Ctrl+Shift+P', frozenset({"corpus"}))
