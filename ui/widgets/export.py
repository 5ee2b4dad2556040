"""Picture and clipboard export shared by every view.

``save_widget_png`` grabs the widget as it is painted; ``save_widget_svg``
re-renders it through ``QSvgGenerator`` (vector where the widget paints
shapes and text). Files are written to a temporary name and renamed into
place, so a failed export never leaves half a file.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QGuiApplication, QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QFileDialog, QWidget

from lm_workbench.engine.errors import WorkbenchError

PNG_FILTER = "PNG image (*.png)"
SVG_FILTER = "SVG vector image (*.svg)"


class ExportError(WorkbenchError):
    """A picture could not be written (a bad path, a full disk)."""


def _temp_beside(path: Path, suffix: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=suffix, dir=path.parent)
    os.close(fd)
    return tmp


def _finish(tmp: str, path: Path, ok: bool) -> Path:
    if not ok or os.path.getsize(tmp) == 0:
        Path(tmp).unlink(missing_ok=True)
        raise ExportError(f"could not write {path}")
    os.replace(tmp, path)
    return path


def save_widget_png(widget: QWidget, path: str | Path) -> Path:
    """Save the widget as painted (its full size, even where scrolled out of sight) as PNG."""
    path = Path(path)
    try:
        tmp = _temp_beside(path, ".png")
    except OSError as exc:
        raise ExportError(f"cannot write {path}: {exc.strerror or exc}") from None
    ok = widget.grab().save(tmp, "PNG")
    return _finish(tmp, path, ok)


def save_widget_svg(widget: QWidget, path: str | Path, title: str = "LM Workbench") -> Path:
    """Render the widget into an SVG file of the widget's size."""
    path = Path(path)
    try:
        tmp = _temp_beside(path, ".svg")
    except OSError as exc:
        raise ExportError(f"cannot write {path}: {exc.strerror or exc}") from None
    generator = QSvgGenerator()
    generator.setFileName(tmp)
    generator.setSize(widget.size())
    generator.setViewBox(QRect(0, 0, widget.width(), widget.height()))
    generator.setTitle(title)
    generator.setDescription(f"{widget.__class__.__name__} exported from LM Workbench")
    painter = QPainter()
    ok = painter.begin(generator)
    if ok:
        try:
            widget.render(painter, QPoint(0, 0))
        finally:
            ok = painter.end()
    return _finish(tmp, path, ok)


def save_widget(widget: QWidget, path: str | Path) -> Path:
    """PNG or SVG, by the file's suffix (PNG when it has neither)."""
    path = Path(path)
    if path.suffix.lower() == ".svg":
        return save_widget_svg(widget, path)
    if path.suffix.lower() != ".png":
        path = path.with_name(path.name + ".png")
    return save_widget_png(widget, path)


def copy_text_to_clipboard(text: str) -> None:
    QGuiApplication.clipboard().setText(text)


def copy_widget_picture(widget: QWidget) -> None:
    """Put the widget, as painted now, on the clipboard as an image."""
    QGuiApplication.clipboard().setImage(widget.grab().toImage())


def export_dialog(parent: QWidget, widget: QWidget, suggested_name: str) -> Path | None:
    """Ask where to save a picture of ``widget`` (PNG or SVG); None if cancelled.

    Raises ``ExportError`` when the file cannot be written.
    """
    start = Path(suggested_name)
    selected = SVG_FILTER if start.suffix.lower() == ".svg" else PNG_FILTER
    name, chosen = QFileDialog.getSaveFileName(
        parent, "Export view as picture", str(start), f"{PNG_FILTER};;{SVG_FILTER}", selected
    )
    if not name:
        return None
    path = Path(name)
    if path.suffix.lower() not in (".png", ".svg"):
        path = path.with_name(path.name + (".svg" if chosen == SVG_FILTER else ".png"))
    return save_widget(widget, path)


def export_table_dialog(parent: QWidget, table: tuple[list[str], list[list]], path: str | Path | None,
                        suggested_name: str, title: str = "Export the table") -> Path | None:
    """Write ``table`` (header, rows) as CSV to ``path``, or to a file the user picks (None if cancelled).

    Raises ``WorkbenchError`` or ``OSError`` when the file cannot be written; callers say so in the window.
    """
    from lm_workbench.export import export_csv

    if path is None:
        path, _ = QFileDialog.getSaveFileName(parent, title, str(Path.home() / suggested_name), "CSV (*.csv)")
        if not path:
            return None
    return export_csv(path, table)
