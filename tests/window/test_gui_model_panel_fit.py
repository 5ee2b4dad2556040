"""The model panel shows each fact whole at 1024 × 768 (issue 49, cosmetic: "encoder-decoder (bart" was cut): a value
too wide for the dock wraps onto another line, and its label is as tall as the wrapped text."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

pytestmark = pytest.mark.timeout(120)


def _whole(label) -> bool:
    text = label.text()
    if label.fontMetrics().horizontalAdvance(text) <= label.contentsRect().width():
        return True  # on one line
    return label.wordWrap() and label.height() >= label.heightForWidth(label.width()) > 0


def test_every_fact_shows_whole_at_1024(open_window, qtbot, tiny_models):
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QDockWidget

    window = open_window(str(tiny_models["bart"]), size=(1024, 768), about=False)
    panel = window.model_panel
    dock = panel.parentWidget()
    while dock is not None and not isinstance(dock, QDockWidget):
        dock = dock.parentWidget()
    assert dock is not None
    window.resizeDocks([dock], [dock.minimumSizeHint().width()], Qt.Orientation.Horizontal)  # as narrow as it goes
    for _ in range(3):
        QApplication.processEvents()
    qtbot.wait(50)
    assert "encoder-decoder" in panel.value("family")
    cut = [key for key, label in panel._values.items() if label.isVisible() and not _whole(label)]
    assert cut == []
