"""The confusion matrix keeps a readable width beside the predictions table (issue 49, cosmetic: about 70 px in the
1280 split layout): at any width of the results panel it gets at least 13 lines' worth of its font."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

pytestmark = pytest.mark.timeout(60)


@pytest.mark.parametrize("width", [420, 640, 1000])
def test_the_confusion_matrix_keeps_its_width(qtbot, width):
    from lm_workbench.ui.finetune.results_panel import ResultsPanel

    panel = ResultsPanel()
    qtbot.addWidget(panel)
    panel.confusion.show()
    panel.resize(width, 300)
    panel.show()
    QApplication.processEvents()
    assert panel.confusion.width() >= 13 * panel.confusion.fontMetrics().height()
