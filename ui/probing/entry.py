"""The probing view's registry entry: its tab, About text, factory, shortcut and inputs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ui.probing import about
from ui.shell.view_entry import ViewEntry

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from ui.shell.view_context import ViewContext


def make_view(ctx: ViewContext) -> QWidget:
    from ui.probing.probing_view import ProbingView  # imported when the tab is built, not with the registry

    return ProbingView(ctx)


ENTRY = ViewEntry('probing', about.TITLE, about.HTML, make_view, 'Ctrl+7', frozenset({"corpus"}),
                   preset_settings=frozenset({"task", "kind", "pooling", "sts_data", "probe", "sts", "mix", "mix_steps",
                             "run", "results"}))
