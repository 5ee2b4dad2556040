"""The file a view's "Choose a file…" works on: the one it was given (a test, a script, a lecture step), or the
one the user picks in an open dialog. ``file_or_ask`` returns that path, or None when the dialog was cancelled."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QFileDialog, QWidget


def file_or_ask(parent: QWidget, path: str | Path | None, title: str, file_filter: str, *, start: str | None = None,
                on_cancel: Callable[[], Any] | None = None) -> str | Path | None:
    """``path`` when it is not None; else the file picked in an open dialog titled ``title`` showing
    ``file_filter`` (from ``start``, the home folder when None); None when the dialog was cancelled, after
    ``on_cancel`` (e.g. putting a combo box back on the current choice)."""
    if path is not None:
        return path
    chosen, _ = QFileDialog.getOpenFileName(parent, title, str(Path.home()) if start is None else start, file_filter)
    if chosen:
        return chosen
    if on_cancel is not None:
        on_cancel()
    return None
