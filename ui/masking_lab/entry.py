"""The masking_lab view's registry entry: its tab, About text, factory, shortcut and inputs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ui.masking_lab import about
from ui.shell.view_entry import ViewEntry

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from ui.shell.view_context import ViewContext


def make_view(ctx: ViewContext) -> QWidget:
    from ui.masking_lab.masking_lab_view import MaskingLabView  # imported when the tab is built, not with the registry

    return MaskingLabView()


ENTRY = ViewEntry('masking_lab', about.TITLE, about.HTML, make_view, 'Ctrl+5', frozenset({"text"}),
                   preset_settings=frozenset({"tokenizer", "objective", "config", "seed", "samples"}))
