"""The Attention tab's step-by-step panel, driven like a user (and a clicker) would, on a tiny BERT.

What the panel shows is checked against the view's own encoding (the model's
attention weights from a separate eager forward pass with output_attentions).
"""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication

from lm_workbench.ui import theme
from lm_workbench.ui.theme_tokens import DEFAULT
from lm_workbench.ui.attention.walkthrough_panel import STEP_TITLES

pytestmark = pytest.mark.timeout(120)
SENTENCE = "the bank raised interest rates"
WAIT = 30000


def _count(widget, colour: str) -> int:
    image = widget.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
    arr = np.frombuffer(image.constBits(), dtype=np.uint32, count=image.sizeInBytes() // 4)
    return int((arr == np.uint32(QColor(colour).rgba())).sum())


def test_step_by_step_walks_from_q_to_the_heads_output(open_window, qtbot, tiny_models, qapp):
    window = open_window(str(tiny_models["bert"]), "attention")
    view = window.view("attention")
    window.text_input.set_text(SENTENCE)
    qtbot.waitUntil(lambda: view.encoding() is not None and view.encoding().tokenized.text == SENTENCE, timeout=WAIT)
    panel = view.walkthrough_panel
    assert not panel.isVisible() and window.clicker.active() is None

    qtbot.mouseClick(view.controls.steps_button, Qt.MouseButton.LeftButton)  # the user's way in
    qtbot.waitUntil(lambda: panel.walkthrough() is not None, timeout=WAIT)
    assert panel.isVisible() and window.clicker.active() is panel
    floor = theme.current().metrics.walkthrough_figures_min_h  # the figures above keep a readable height
    qtbot.waitUntil(lambda: view.splitter.height() >= floor, timeout=WAIT)
    assert view.open_walkthrough(1, 2, 3)  # a preset's way in: layer 1, head 2, query token 3
    qtbot.waitUntil(lambda: panel.walkthrough() is not None and (panel.walkthrough().layer, panel.walkthrough().head,
                                                           panel.walkthrough().query_index) == (1, 2, 3), timeout=WAIT)
    steps = panel.walkthrough()
    model_row = view.encoding().attentions[1, 2, 3]  # the model's own weights, from the view's forward pass
    assert np.abs(steps.weights - model_row).max() <= 1e-5
    assert panel.step() == 0 and panel.canvas.kind() == "rows"
    assert np.allclose(panel.canvas.data(), steps.query[None, :])
    assert "step 1 of 8" in panel.where.text()

    # A clicker's PageDown walks through every step, even with the focus in the text box
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5000)
    window.text_input.editor.setFocus()
    seen = {}
    for i in range(1, len(STEP_TITLES)):
        qtbot.keyClick(window.text_input.editor, Qt.Key.Key_PageDown)
        assert panel.step() == i
        seen[i] = (panel.canvas.kind(), panel.canvas.data(), panel.caption.text())
    assert seen[2][0] == "rows" and np.allclose(seen[2][1], steps.query[None, :] * steps.keys)
    assert seen[3][0] == "bars" and np.allclose(seen[3][1], steps.keys @ steps.query)
    assert np.allclose(seen[4][1], seen[3][1] / np.sqrt(steps.d_k))
    assert seen[5][0] == "bars" and np.abs(seen[5][1] - model_row).max() <= 1e-5
    assert seen[7][0] == "rows" and np.allclose(seen[7][1][0], model_row @ steps.values, atol=1e-5)
    assert f"{model_row.max():.3f}" in seen[5][2]  # the caption names the largest weight
    qtbot.keyClick(window.text_input.editor, Qt.Key.Key_PageDown)  # past the end: stays
    assert panel.step() == len(STEP_TITLES) - 1 and not panel.next_button.isEnabled()
    qtbot.keyClick(window.text_input.editor, Qt.Key.Key_PageUp)
    assert panel.step() == len(STEP_TITLES) - 2

    # The bars are drawn in the theme's colours, and follow a token swap
    panel.set_step(5)
    assert _count(panel.canvas, DEFAULT.colours.prob_bar) > 20
    try:
        theme.set_tokens(DEFAULT.replace(prob_bar="#ff00ff"))
        assert _count(panel.canvas, "#ff00ff") > 20 and _count(panel.canvas, DEFAULT.colours.prob_bar) == 0
    finally:
        theme.set_tokens(DEFAULT)

    # Another head from the panel's own picker: computed again, the step kept
    panel.head_spin.setValue(0)
    qtbot.waitUntil(lambda: panel.walkthrough().head == 0, timeout=WAIT)
    assert np.abs(panel.walkthrough().weights - view.encoding().attentions[1, 0, 3]).max() <= 1e-5
    assert panel.step() == 5

    qtbot.mouseClick(panel.close_button, Qt.MouseButton.LeftButton)
    assert not panel.isVisible() and window.clicker.active() is None
    assert view.splitter.minimumHeight() == 0  # closed: the figures take the whole height again
