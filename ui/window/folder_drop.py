"""Dropping a model folder on the window (or on its text boxes) loads it: the main window's drag and drop."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QMimeData, QObject
from PySide6.QtGui import QDragEnterEvent, QDropEvent


def folder_from_mime(mime: QMimeData) -> str | None:
    """The first local folder among dropped URLs, if any."""
    for url in mime.urls() if mime.hasUrls() else ():
        if url.isLocalFile() and Path(url.toLocalFile()).is_dir():
            return url.toLocalFile()
    return None


class FolderDrop:
    """Mixed into the main window (before ``QMainWindow``): a dropped folder goes to the model field and loads;
    the text boxes pass folders dropped on them here (the window filters their events)."""

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802
        if folder_from_mime(event.mimeData()):
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)

    def dragMoveEvent(self, event) -> None:  # noqa: N802
        if folder_from_mime(event.mimeData()):
            event.acceptProposedAction()
        else:
            super().dragMoveEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802
        folder = folder_from_mime(event.mimeData())
        if folder is None:
            super().dropEvent(event)
            return
        event.acceptProposedAction()
        self.model_panel.model_edit.setText(folder)
        self.load_model(folder)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        """Folders dropped on the text boxes load a model instead of pasting a path."""
        kind = event.type()
        if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove, QEvent.Type.Drop):
            if folder_from_mime(event.mimeData()):
                if kind == QEvent.Type.Drop:
                    self.dropEvent(event)
                else:
                    event.acceptProposedAction()
                return True
        return super().eventFilter(watched, event)
