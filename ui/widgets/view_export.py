"""A view's Export menu, done the same way everywhere: ``export_button`` makes the "Export" button that pops the
menu up; the entries save the picture of a widget (PNG or SVG) or a table (CSV), each to ``path`` or to a file the
user picks, named after the view and the loaded model. Both return the file written, or None when there was
nothing to export, the dialog was cancelled or writing failed (said in the window through ``ctx.show_message``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QMenu, QToolButton, QWidget

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.export import suggest_filename
from lm_workbench.ui.widgets.export import export_dialog, export_table_dialog, save_widget
from lm_workbench.ui.widgets.controls import menu_button


def export_button(owner: QWidget, *entries: tuple[str, Callable[[], Any]]) -> QToolButton:
    """The "Export" tool button, its menu (a child of ``owner``) listing ``entries``: ``(text, slot)`` each, in
    order."""
    menu = QMenu(owner)
    for text, slot in entries:
        menu.addAction(text, slot)
    return menu_button("Export", menu)


def export_view_picture(ctx: Any, parent: QWidget, widget: QWidget, view: str,
                        path: str | Path | None = None) -> Path | None:
    """Save ``widget`` as painted to ``path`` (PNG or SVG by its suffix), or ask where (a name like
    ``<view>_<model>_<time>.png`` in the home folder offered)."""
    try:
        if path is None:
            name = suggest_filename(view, ctx.model_spec() or "model", "png")
            return export_dialog(parent, widget, str(Path.home() / name))
        return save_widget(widget, path)
    except (WorkbenchError, OSError) as exc:
        ctx.show_message(f"Export failed: {exc}", "warning")
        return None


def export_view_table(ctx: Any, parent: QWidget, table: tuple[list[str], list[list[Any]]], view: str,
                      path: str | Path | None, title: str, empty: str) -> Path | None:
    """Write ``table`` (header, rows) as CSV to ``path``, or ask where (the dialog titled ``title``); with no
    rows, only the message ``empty``."""
    header, rows = table
    if not rows:
        ctx.show_message(empty, "info")
        return None
    name = suggest_filename(view, ctx.model_spec() or "model", "csv")
    try:
        return export_table_dialog(parent, (header, rows), path, name, title)
    except (WorkbenchError, OSError) as exc:
        ctx.show_message(f"Export failed: {exc}", "warning")
        return None
