"""The Patching tab with the real widgets: the heatmap equals the engine's sweep computed here independently,
rows fill in layer by layer, Cancel keeps the rows done; the Qt-free state on its own."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest

from lm_workbench.engine.models.loading import load_source as load_model
from lm_workbench.engine.patching.tracing import patch
from lm_workbench.ui.widgets.token_layout import display_label
from lm_workbench.patching.view_tasks import engine_arguments
from lm_workbench.patching.state import PatchingState
from lm_workbench.requests import PatchRequest

pytestmark = pytest.mark.timeout(120)

WAIT = 30000
CLEAN, CORRUPT = "The name of the", "The value of the"


def test_the_heatmap_equals_the_engines_sweep(open_window, qtbot, tiny_models):
    folder = str(tiny_models["gpt2"])
    window = open_window(folder, "patching")
    view = window.view("patching")
    partial_rows = []
    view.state.events.result_changed.connect(
        lambda: partial_rows.append(view.state.layers_done()) if view.state.running else None)
    view.set_inputs(CLEAN, CORRUPT, "Ġlist", "Ġclass", "mlp")
    view.run_button.click()
    origin = view.origin_line  # issue 49.5: while it runs the map says so, never "Press Run"
    assert origin.text() == "Patching every layer and token…" and not view.heatmap.empty_hint.startswith("Press")
    qtbot.waitUntil(lambda: not view.state.running and view.state.result is not None, timeout=WAIT)
    expected = patch(load_model(folder), CLEAN, CORRUPT, "Ġlist", "Ġclass", "mlp")
    np.testing.assert_allclose(view.heatmap.matrix(), np.array(expected.effect), atol=1e-6)
    assert 1 in partial_rows  # the first layer's row came before the whole result
    summary = view.summary.text()
    assert f"{expected.clean_metric:.3f}" in summary and display_label(expected.clean_prediction) in summary
    assert view.run_button.isEnabled() and not view.cancel_button.isEnabled()
    assert view.export_widget() is view.results and view.preset_state()[0]["site"] == "mlp"
    if os.environ.get("LM_WORKBENCH_SHOTS"):
        view.grab().save(os.path.join(os.environ["LM_WORKBENCH_SHOTS"], "patching.png"))
    # another answer typed: the map stays, greyed and named by its own inputs, with Run again
    assert origin.text().startswith("From gpt2, clean “The name of the”") and not origin.stale()
    shown = view.heatmap.matrix().copy()
    view.answer_edit.setText("Ġclass")
    assert origin.stale() and origin.greyed(view.heatmap) and f"answer “{display_label('Ġlist')}”" in origin.text()
    assert origin.again_button.isVisible()
    np.testing.assert_array_equal(view.heatmap.matrix(), shown)
    view.answer_edit.setText("Ġlist")  # back to its inputs: current again
    assert not origin.stale() and not origin.greyed(view.heatmap)
    # a bad input is a one-line notice, not a crash
    view.set_inputs(CLEAN, "The cat sat on the mat", "Ġlist")
    view.run_button.click()
    qtbot.waitUntil(lambda: view.notice.level() == "warning", timeout=WAIT)
    assert "same number of tokens" in view.notice.text()


def test_cancel_keeps_the_layers_done(open_window, qtbot, tiny_models, monkeypatch):
    import threading

    from lm_workbench.engine.progress import Partial
    from lm_workbench.ui.patching import patching_view

    real = patching_view.patching_sweep

    def held(loaded, request, cancel):
        """The real sweep, held after its first layer until Cancel arrives (the tiny model is too quick)."""
        gen = real(loaded, request, cancel)
        while True:
            try:
                report = next(gen)
            except StopIteration as stop:
                return stop.value
            yield report
            if isinstance(report, Partial):
                for _ in range(200):
                    if cancel.cancelled:
                        break
                    threading.Event().wait(0.05)

    monkeypatch.setattr(patching_view, "patching_sweep", held)
    window = open_window(str(tiny_models["gpt2"]), "patching")
    view = window.view("patching")
    view.state.events.result_changed.connect(
        lambda: view.cancel() if view.state.running and view.state.layers_done() == 1 else None)
    view.set_inputs(CLEAN, CORRUPT, "Ġlist", "Ġclass", "resid")
    view.run_button.click()
    qtbot.waitUntil(lambda: not view.state.running and view.cancel_button.isEnabled() is False, timeout=WAIT)
    qtbot.waitUntil(lambda: "Cancelled" in view.notice.text(), timeout=WAIT)
    assert view.state.layers_done() == 1
    shown = view.heatmap.matrix()
    assert np.isfinite(shown[0]).all() and np.isnan(shown[1]).all()
    assert view.run_button.isEnabled()


def test_the_state_without_a_window():
    state = PatchingState()
    assert state.problem() == "Write the clean text."
    seen = []
    state.events.result_changed.connect(lambda: seen.append(state.layers_done()))
    state.set_inputs("a b", "a c", "x", "", "attn")
    assert state.problem() is None and state.request() == PatchRequest(
        model="", clean="a b", corrupt="a c", target="x", contrast=None, site="attn", subject=None)
    assert engine_arguments(state.request()) == {  # the engine names the target answer, the contrast wrong
        "clean": "a b", "corrupt": "a c", "answer": "x", "wrong": None, "site": "attn", "subject": None,
        "noise_scale": 3.0, "samples": 10, "seed": 0, "output_position": 0}
    state.set_inputs(corrupt_by="noise")
    assert state.problem().startswith("Name the subject")
    state.set_inputs(subject="b")
    assert state.request().corrupt is None and state.request().subject == "b"
    state.set_inputs(corrupt_by="text")

    class Fake:
        def __init__(self, rows):
            self.layers, self.tokens, self.effect = [0, 1, 2], ["a", "b"], rows

    state.start()
    state.add_partial(Fake([[0.5, 1.0]]))
    matrix = state.matrix()
    assert matrix[0] == [0.5, 1.0] and all(math.isnan(v) for v in matrix[1] + matrix[2])
    state.finish(Fake([[0.5, 1.0], [0.0, 0.2], [0.1, 0.3]]))
    assert not state.running and seen == [0, 1, 3] and state.matrix()[2] == [0.1, 0.3]


def test_noise_on_the_subject_from_the_form(open_window, qtbot, tiny_models):
    """Corrupt by "noise on the subject (ROME)" chosen in the form: the corrupted-text field is disabled, the
    heatmap is the engine's noised sweep and the summary names the noised tokens; a workspace keeps the mode."""
    from PySide6.QtCore import Qt

    from lm_workbench.engine.patching.tracing import patching_job
    from lm_workbench.engine.progress import run_to_completion

    folder = str(tiny_models["gpt2"])
    window = open_window(folder, "patching")
    view = window.view("patching")
    view.set_inputs(CLEAN, "", "Ġlist", "Ġclass", "resid")
    assert not view.subject_edit.isEnabled()
    view.corrupt_by_combo.setCurrentIndex(view.corrupt_by_combo.findData("noise"))
    assert view.subject_edit.isEnabled() and not view.corrupt_edit.isEnabled()
    view.run_button.click()
    qtbot.waitUntil(lambda: view.notice.level() == "info", timeout=WAIT)  # no subject yet: says so
    assert "subject" in view.notice.text()
    qtbot.keyClicks(view.subject_edit, "name")
    qtbot.keyClick(view.subject_edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not view.state.running and view.state.result is not None, timeout=WAIT)
    expected = run_to_completion(patching_job(load_model(folder), CLEAN, None, "Ġlist", "Ġclass", "resid",
                                                subject="name"))
    np.testing.assert_allclose(view.heatmap.matrix(), np.array(expected.effect), atol=1e-6)
    assert "noise on <b>name</b> (tokens 1)" in view.summary.text()
    settings = view.preset_state()[0]
    assert settings["corrupt_by"] == "noise" and settings["subject"] == "name"
    if os.environ.get("LM_WORKBENCH_SHOTS"):
        view.grab().save(os.path.join(os.environ["LM_WORKBENCH_SHOTS"], "patching-noise.png"))
