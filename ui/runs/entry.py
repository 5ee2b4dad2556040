"""The runs view's registry entry: its tab, About text, factory, shortcut and inputs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ui.runs import about
from ui.shell.view_entry import ViewEntry

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from ui.shell.view_context import ViewContext


def make_view(ctx: ViewContext) -> QWidget:
    from ui.runs.runs_browser import RunsBrowser  # imported when the tab is built, not with the registry

    return RunsBrowser(ctx.run_services)


ENTRY = ViewEntry('runs', about.TITLE, about.HTML, make_view, 'Ctrl+R')
