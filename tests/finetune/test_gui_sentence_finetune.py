"""The Fine-tune tab's sentence-embedding task with real widgets on the tiny BERT: the task's demo set and its
loss / pooling / margin choices reach the run's spec; after a run the STS table shows the base beside the trained
encoder, per layer, its last row equal to the run's own Spearman before training (step 0) and at the end, which the
training loop's validation computed by another path. The run itself goes through ``run_finetune`` in this process
(what the lane's child runs), so the test does not wait for a child process to import torch."""

from __future__ import annotations

import os

import pytest
import torch

from lm_workbench.engine.finetune.demo import demo_path
from lm_workbench.ui.window.view_registry import ViewRegistry, builtin_views
from lm_workbench.finetune.train import run_finetune

pytestmark = pytest.mark.timeout(240)


def test_sentence_task_form_and_sts_before_after(open_window, qtbot, tiny_models, fresh_home, tmp_path):
    torch.set_num_threads(1)
    builtin = builtin_views()
    window = open_window(str(tiny_models["bert"]), "finetune", registry=ViewRegistry([builtin.get("finetune")]),
                         size=(1280, 860), about=False)
    view = window.view("finetune")
    form = view.form
    assert not form.sentence_box.isVisible()
    form.set_values(task="sentence-embedding")
    assert form.sentence_box.isVisible() and form.train_edit.text() == str(demo_path("sentence-embedding"))
    form.set_values(loss="triplet", pooling="max")
    form.margin_spin.setValue(0.5)
    spec = view.state.spec(str(tiny_models["bert"]), str(tmp_path / "x"))
    assert (spec.task, spec.loss, spec.pooling, spec.margin) == ("sentence-embedding", "triplet", "max", 0.5)
    form.set_values(loss="cosine", pooling="mean")
    assert not form.margin_spin.isEnabled()  # ε belongs to the triplet loss

    lines = demo_path("sentence-embedding").read_text(encoding="utf-8").splitlines()
    train, validation = tmp_path / "train.tsv", tmp_path / "validation.tsv"
    train.write_text("\n".join([lines[0]] + lines[1:49]) + "\n", encoding="utf-8")
    validation.write_text("\n".join([lines[0]] + lines[320:344]) + "\n", encoding="utf-8")
    form.browse("train", str(train))
    form.browse("validation", str(validation))
    form.method_combo.setCurrentIndex(form.method_combo.findData("full"))
    view.state.set_form(epochs=2.0, max_length=32, training={"threads": 1})
    out = tmp_path / "run"
    # the form counts parameters on the worker thread (it loads the base): let it end before this thread loads
    # the base too (two transformers loads at once in one process corrupt its initialisation state)
    qtbot.waitUntil(lambda: not view.ctx.jobs.busy() and "counting" not in form.params_label.text(), timeout=60000)
    spec = view.state.spec(window.loaded.info.spec, str(out))
    assert (spec.loss, spec.pooling, spec.margin) == ("cosine", None, None)
    summary = run_finetune(spec, run_id=1)
    view.run_out[1], view.run_method = str(out), "full"
    view._ended(1, "finished")  # what the tab does when its follower sees the run finish
    qtbot.waitUntil(lambda: view.state.sts_run_id == 1, timeout=60000)
    rows = view.sts_table.rows()
    assert [r[0] for r in rows] == ["0", "1", "2"]  # the embeddings and both layers of the tiny BERT
    before, after = float(rows[-1][1]), float(rows[-1][2])
    assert before == pytest.approx(summary["history"][0][1]["spearman"], abs=6e-4)  # shown to 3 decimals
    assert after == pytest.approx(summary["validation"]["spearman"], abs=6e-4)
    assert rows[-1][3] == f"{after - before:+.3f}" or abs(float(rows[-1][3]) - (after - before)) < 2e-3
    assert view.tabs.currentIndex() == 2 and view.sts_table.isVisible()
    assert view.open_button.isEnabled()
    if os.environ.get("SHOT"):
        window.grab().save(os.environ["SHOT"])
