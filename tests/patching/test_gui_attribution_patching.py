"""The Patching tab's "Fast (gradient)" and "Refine exactly" with the real widgets: the fast heatmap equals the
gradient × difference computed here with plain hooks, the refined one the exact sweep, and the line under it the
two matrices' correlation (numpy) and largest disagreement."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from lm_workbench.engine.patching.tracing import patch
from tests.support.attribution_patching_reference import ANSWER, CLEAN, CORRUPT, WRONG, by_hand

pytestmark = pytest.mark.timeout(120)

WAIT = 30000


def test_fast_first_then_refine_exactly(open_window, qtbot, tiny_models):
    folder = str(tiny_models["gpt2"])
    window = open_window(folder, "patching")
    view = window.view("patching")
    view.set_inputs(CLEAN, CORRUPT, ANSWER, WRONG, "attn", fast=True)
    assert not view.refine_button.isEnabled()
    view.run_button.click()
    qtbot.waitUntil(lambda: not view.state.running and view.state.result is not None, timeout=WAIT)
    loaded = view.ctx.loaded  # the model the window loaded from the folder
    expected, _, _ = by_hand(loaded.model, loaded.tokenizer, "attn")
    fast = view.heatmap.matrix()
    np.testing.assert_allclose(fast, torch.stack(expected).numpy(), atol=1e-4)
    assert "approximate" in view.summary.text() and view.comparison_line.text() == ""
    assert view.refine_button.isEnabled() and view.preset_state()[0]["fast"] is True
    view.refine_button.click()
    qtbot.waitUntil(lambda: not view.state.running and view.comparison_line.text() != "", timeout=WAIT)
    exact = np.array(patch(loaded, CLEAN, CORRUPT, ANSWER, WRONG, "attn").effect)
    np.testing.assert_allclose(view.heatmap.matrix(), exact, atol=1e-6)
    r = np.corrcoef(fast.ravel(), exact.ravel())[0, 1]
    line = view.comparison_line.text()
    assert f"Pearson r = {r:.3f}" in line
    worst = np.unravel_index(np.argmax(np.abs(fast - exact)), exact.shape)
    assert f"layer {worst[0]}," in line.split("Largest disagreements")[1].split(";")[0]
    assert line.count(" (token ") == 5
    assert "approximate" not in view.summary.text() and not view.refine_button.isEnabled()


def test_the_state_refines_only_the_same_inputs_on_the_same_model():
    from types import SimpleNamespace

    from lm_workbench.patching.state import PatchingState

    state = PatchingState()
    state.set_inputs("a b", "a c", "x", fast=True)
    state.start("attribution")
    state.finish(SimpleNamespace(layers=[0], tokens=["a", "b"], effect=[[0.0, 1.0]]))
    assert state.can_refine()
    state.start("exact")  # Refine exactly: the approximate result stays to be compared
    state.finish(SimpleNamespace(layers=[0], tokens=["a", "b"], effect=[[0.0, 3.0]]))
    assert state.comparison.disagreements[0].difference == -2.0 and not state.can_refine()
    state.start("attribution")
    state.finish(SimpleNamespace(layers=[0], tokens=["a", "b"], effect=[[0.0, 1.0]]))
    state.set_inputs(target="y")  # other inputs: nothing to refine
    assert not state.can_refine()
    state.set_inputs(target="x")
    assert state.can_refine()
    state.clear()  # another model
    assert not state.can_refine() and state.result is None and state.approximate is None
