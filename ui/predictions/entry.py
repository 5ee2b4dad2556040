"""The predictions view's registry entry: its tab, About text, factory, shortcut and inputs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ui.predictions import about
from ui.shell.view_entry import ViewEntry

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from ui.shell.view_context import ViewContext


def make_view(ctx: ViewContext) -> QWidget:
    from ui.predictions.predictions_view import PredictionsView  # imported when the tab is built, not with the registry

    return PredictionsView()


ENTRY = ViewEntry('predictions', about.TITLE, about.HTML, make_view, 'Ctrl+3', frozenset({"text"}))
