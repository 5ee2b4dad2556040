"""Issue 49.5 in the Heads tab: while a sweep runs the map says so (never "Press Ablate every head"); the finished
map names its model and text; another text greys it ("from <model>, <input>", Run again) and keeps its cells;
another model clears it."""

from __future__ import annotations

import os

import numpy as np
import pytest
from PySide6.QtCore import Qt

pytestmark = pytest.mark.timeout(120)

WAIT = 30000


def _sweep(view, qtbot):
    qtbot.mouseClick(view.sweep_button, Qt.MouseButton.LeftButton)
    running = (view.state.running, view.sweep_origin.text(), view.sweep_map.empty_hint)
    qtbot.waitUntil(lambda: not view.state.running and view.state.sweep is not None, timeout=WAIT)
    return running


def test_sweep_named_stale_and_cleared(open_window, qtbot, tiny_models):
    window = open_window(str(tiny_models["gpt2"]), "heads")
    view = window.view("heads")
    window.text_input.set_text("The cat sat on the")
    view.set_inputs("Ġthe")
    view.inputs_changed.emit()
    qtbot.waitUntil(lambda: view.state.dla is not None and view.state.dla.target == "Ġthe", timeout=WAIT)

    running, line, hint = _sweep(view, qtbot)
    assert running and line == "Ablating every head…" and not hint.startswith("Press")
    assert view.sweep_map.empty_hint.startswith("Press")  # idle again
    origin = view.sweep_origin
    assert not origin.stale() and origin.text().startswith("From gpt2") and "The cat sat on the" in origin.text()
    shown = view.sweep_map.matrix().copy()

    # another text: the split follows, the sweep stays greyed and named with its own text
    window.text_input.set_text("A dog ran to the")
    qtbot.waitUntil(lambda: origin.stale(), timeout=WAIT)
    assert origin.text().startswith("Stale (the inputs changed): from gpt2") and "The cat sat on the" in origin.text()
    assert origin.greyed(view.sweep_map) and origin.again_button.isVisible()
    np.testing.assert_array_equal(view.sweep_map.matrix(), shown)
    shot = os.environ.get("LMW_STALE_SHOT")  # a look at it: LMW_STALE_SHOT=/tmp/stale.png
    if shot:
        window.resize(1024, 768)
        qtbot.wait(50)
        window.grab().save(shot)
    qtbot.mouseClick(origin.again_button, Qt.MouseButton.LeftButton)  # Run again: this text's sweep
    qtbot.waitUntil(lambda: not view.state.running and not origin.stale() and origin.text() != "", timeout=WAIT)
    assert "A dog ran to the" in origin.text() and not origin.greyed(view.sweep_map)

    # the form changes (another target): stale again
    view.set_inputs("Ġa")
    assert origin.stale()

    # another model: the ablation map is cleared
    window.load_model(str(tiny_models["bert"]))
    qtbot.waitUntil(lambda: window.loaded is not None and "bert" in window.loaded.info.spec, timeout=WAIT)
    assert view.sweep_map.matrix() is None and origin.text() == "" and not origin.greyed(view.sweep_map)
