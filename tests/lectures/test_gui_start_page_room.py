"""The Start page gives its height to the lecture presets (issue 49, cosmetic: five preset rows stood above an empty
workspaces box): at 1024 × 768 at least eight presets show whole, and the workspaces box is no taller than its
rows need (two at least)."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

pytestmark = pytest.mark.timeout(60)


def test_the_presets_take_the_height(open_window, qtbot, fresh_home):
    window = open_window(size=(1024, 768), about=False)
    window.lectures.show_start_page()
    page = window.lectures.start_page
    page.resize(700, 560)
    for _ in range(3):
        QApplication.processEvents()
    presets, viewport = page.presets, page.presets.viewport()
    whole = [r for r in range(presets.count())
             if presets.visualItemRect(presets.item(r)).bottom() <= viewport.height()
             and presets.visualItemRect(presets.item(r)).top() >= 0]
    assert len(whole) >= min(8, presets.count())
    rows = max(2, page.workspaces.count())
    row = max(page.workspaces.sizeHintForRow(r) for r in range(page.workspaces.count()))
    assert page.workspaces.height() <= rows * max(row, page.workspaces.fontMetrics().lineSpacing() + 6) + 40
    page.close()
