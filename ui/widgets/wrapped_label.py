"""A word-wrapped label that keeps every line visible inside containers that ignore height-for-width.

A ``QSplitter`` (``ModelBSplit``) asks its children for one minimum height whatever their width, so a wrapped
``QLabel`` in a half-width column is squeezed to one line. ``WrappedLabel`` sets its own minimum height to
what its text needs at its current width, each time the width or the text changes.
"""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QWidget


class WrappedLabel(QLabel):
    def __init__(self, text: str = "", parent: QWidget | None = None):
        super().__init__(text, parent)
        self.setWordWrap(True)

    def setText(self, text: str) -> None:  # noqa: N802
        super().setText(text)
        self._fit()

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        needed = self.heightForWidth(max(self.width(), 1)) if self.text() else 0
        if needed != self.minimumHeight():
            self.setMinimumHeight(max(needed, 0))
