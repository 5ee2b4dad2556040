"""The Lens tab's tuned lens with real widgets: train through the view, switch lenses, the chart, Cancel.

The chart's curves are checked against the state's, and the state's tuned KL against ``reference_kl``
(plain transformers with the translators the run saved, read with safetensors).
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest
import torch
from PySide6.QtCore import Qt
from safetensors.torch import load_file

from tests.support.tuned_lens_reference import corpus_file, reference_kl

pytestmark = pytest.mark.timeout(120)
WAIT = 30000
TEXT = "The value of the object is returned."


def test_train_switch_and_chart(open_window, qtbot, tiny_models, fresh_home, tmp_path):
    import transformers as tf

    from lm_workbench.store import RunStore

    folder = tmp_path / "gpt2"
    shutil.copytree(tiny_models["gpt2"], folder)  # the run writes folder/tuned_lens
    window = open_window(str(folder), "lens")
    view = window.view("lens")
    controls, state = view.tuned, view.tuned.state
    window.text_input.set_text(TEXT)
    qtbot.waitUntil(lambda: view.model.table() is not None, timeout=WAIT)
    assert not controls.tuned_button.isEnabled() and controls.train_button.isEnabled()
    assert view.kl_chart.curve_data() == state.kl_curves() and set(state.kl_curves()) == {"logit"}

    state.corpus = str(corpus_file(tmp_path))
    controls.steps.setValue(15)
    qtbot.mouseClick(controls.train_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: state.has_tuned and not state.training, timeout=WAIT)
    qtbot.waitUntil(lambda: state.both is not None and state.both.tuned is not None, timeout=WAIT)
    assert state.folder == folder / "tuned_lens" and controls.tuned_button.isEnabled()
    assert state.mode == "tuned" and view.model.table() is state.both.tuned
    curves = view.kl_chart.curve_data()
    assert curves == state.kl_curves() and set(curves) == {"logit", "tuned"}

    model = tf.AutoModelForCausalLM.from_pretrained(folder).eval()
    ids = torch.tensor([tf.AutoTokenizer.from_pretrained(folder)(TEXT)["input_ids"]])
    saved = load_file(str(folder / "tuned_lens" / "translators.safetensors"))
    np.testing.assert_allclose(curves["logit"], reference_kl(model, ids), rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(curves["tuned"], reference_kl(model, ids, saved["weight"], saved["bias"]), rtol=1e-6,
                               atol=1e-12)
    assert np.mean(curves["tuned"][:-1]) < np.mean(curves["logit"][:-1])

    qtbot.mouseClick(controls.logit_button, Qt.MouseButton.LeftButton)
    assert state.mode == "logit" and view.model.table() is state.both.logit
    qtbot.mouseClick(controls.tuned_button, Qt.MouseButton.LeftButton)
    assert state.mode == "tuned" and view.model.table() is state.both.tuned

    controls.steps.setValue(100_000)  # Cancel stops it; the run is recorded as cancelled
    qtbot.mouseClick(controls.train_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: controls.progress.maximum() == 100_000 and controls.progress.value() > 0, timeout=WAIT)
    window.text_input.set_text(TEXT + " Again.")  # typing while it trains: the tokenizing waits, the training goes on
    qtbot.waitUntil(lambda: not window.text_input.pending(), timeout=WAIT)  # the typing pause is over
    qtbot.wait(500)  # the tokenizing is asked for now: it used to cancel the training here
    assert state.training, controls.status.text()
    before = controls.progress.value()
    qtbot.waitUntil(lambda: controls.progress.value() > before, timeout=WAIT)
    assert state.training and window.tokenized.text == TEXT
    qtbot.mouseClick(controls.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not state.training, timeout=WAIT)
    assert "cancelled" in controls.status.text()
    # then the text typed meanwhile is read: its tokens, and the lens of it
    qtbot.waitUntil(lambda: window.tokenized is not None and window.tokenized.text.endswith("Again."), timeout=WAIT)
    qtbot.waitUntil(lambda: view.model.table() is not None and "Again" in "".join(view.model.table().tokens),
                    timeout=WAIT)
    with RunStore(view.ctx.run_services.path) as store:
        runs = store.list_runs(kind="tuned-lens")
    assert sorted(r["status"] for r in runs) == ["cancelled", "finished"]
    assert list((folder / "tuned_lens" / "checkpoints").glob("step-*"))  # the loop saved one on Cancel


def test_a_result_line_goes_when_another_model_loads(open_window, qtbot, tiny_models):
    """A tuned-lens result line belongs to the model it was trained on (issue 36: "run 3: mean KL 0.216 -> 0.0533"
    trained on BERT still showed after a lecture loaded GPT-2)."""
    window = open_window(str(tiny_models["bert"]), "lens")
    controls = window.view("lens").tuned
    window.text_input.set_text(TEXT)
    qtbot.waitUntil(lambda: controls.state.model_folder is not None, timeout=WAIT)
    controls.status.setText("run 3: mean KL 0.216 (logit) -> 0.0533 (tuned)")
    window.load_model(str(tiny_models["gpt2"]))
    qtbot.waitUntil(lambda: window.loaded.info.model_type == "gpt2" and controls.state.model_folder is not None
                    and "gpt2" in controls.state.model_folder, timeout=WAIT)
    assert controls.status.text() == ""


def test_a_page_asking_for_the_tuned_lens_trains_once_then_loads_the_recorded_run(open_window, qtbot, tiny_models,
                                                                                 fresh_home, tmp_path):
    """A guide page or lecture step with ``"tuned": true``: the first visit trains (one recorded run) and shows the
    tuned lens; the next visit loads that run's translators (no new run, the line says so); other settings, another
    model or a deleted folder train again (``tests/runs/test_view_run_reuse.py``).
    The training starts after the page's text is read (a newer job in the window would cancel it)."""
    from lm_workbench.store import RunStore
    from lm_workbench.ui.window.view_registry import ViewRegistry, builtin_views

    folder = tmp_path / "gpt2"
    shutil.copytree(tiny_models["gpt2"], folder)
    builtin = builtin_views()
    window = open_window(str(folder), "lens", registry=ViewRegistry([builtin.get("tokens"), builtin.get("lens")]))
    view = window.view("lens")
    controls, state = view.tuned, view.tuned.state
    state.corpus = str(corpus_file(tmp_path, lines=120))

    def visit(steps):
        window.view_host.apply_preset_step("lens", {"tuned": False}, {})
        window.text_input.set_text(f"{TEXT} {steps}")  # a page's text, then its settings (as a lecture step)
        window.view_host.apply_preset_step("lens", {"tuned": True, "tuned_steps": steps}, {})
        qtbot.waitUntil(lambda: state.mode == "tuned" and not state.training and state.both is not None
                        and state.both.tuned is not None and not view.ctx.jobs.busy(), timeout=WAIT)
        with RunStore(view.ctx.run_services.path) as store:
            return sorted((r["id"], r["status"]) for r in store.list_runs(kind="tuned-lens", recover=False))

    first = visit(4)
    assert [status for _, status in first] == ["finished"] and "recorded before" not in controls.status.text()
    shown = list(view.kl_chart.curve_data()["tuned"])
    window.text_input.set_text(TEXT)
    assert visit(4) == first and "recorded before" in controls.status.text()  # loaded, not trained
    assert view.kl_chart.curve_data()["tuned"] == shown and view.preset_state()[0] == {"tuned": True, "tuned_steps": 4}
