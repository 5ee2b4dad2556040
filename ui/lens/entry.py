"""The lens view's registry entry: its tab, About text, factory, shortcut and inputs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ui.lens import about
from ui.shell.view_entry import ViewEntry

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from ui.shell.view_context import ViewContext


def make_view(ctx: ViewContext) -> QWidget:
    from ui.lens.lens_view import LensView  # imported when the tab is built, not with the registry

    return LensView()


ENTRY = ViewEntry('lens', about.TITLE, about.HTML, make_view, 'Ctrl+4', frozenset({"text"}))
