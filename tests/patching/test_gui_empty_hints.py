"""An empty heatmap says where its matrix comes from: "Click a cell of the grid." belongs to the Attention tab's
grid alone (issue 36: it showed in Patching and Compare before any grid existed)."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QImage

pytestmark = pytest.mark.timeout(60)


def _drawn(widget) -> QImage:
    widget.resize(400, 300)
    return widget.grab().toImage()


def test_each_empty_heatmap_names_its_own_source(open_window):
    window = open_window()
    hints = {view: window.view(view).heatmap.empty_hint for view in ("attention", "patching", "compare")}
    assert hints["attention"] == "Click a cell of the grid."
    assert all("grid" not in hint for view, hint in hints.items() if view != "attention")
    assert "Run" in hints["patching"] and "CKA" in hints["compare"]
    patching = window.view("patching").heatmap
    empty = _drawn(patching)
    patching.empty_hint = "something else entirely, much longer than before"
    changed = _drawn(patching)
    assert empty != changed  # the hint is what the empty view draws
