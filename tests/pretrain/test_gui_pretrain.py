"""The Pre-train tab with real widgets: the form's parameter count, a real tiny run followed live, Cancel."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch

from tests.support.pretrain_corpus import write_corpus
from lm_workbench.paths import runs_db_path
from lm_workbench.store.run_store import RunStore

pytestmark = pytest.mark.timeout(180)

SHOTS = "/work/coord/shots"
RUN_TIMEOUT = 120_000  # ms; a 20-step run takes ~10 s alone, far longer on a machine shared by several suites


@pytest.fixture
def make_view(open_window, qtbot, fresh_home):
    """(window, its Pre-train tab), once the form is ready."""

    def make():
        window = open_window(view="pretrain", size=(1280, 860), about=False)
        view = window.view("pretrain")
        qtbot.waitUntil(lambda: view.form.ready, timeout=30000)
        return window, view

    return make


def fill_tiny_gpt2(qtbot, form, corpus: Path, steps: int, out_dir: Path) -> None:
    form.family_combo.setCurrentIndex(form.family_combo.findData("gpt2"))
    assert form.objective_name() == "clm"
    form.preset_combo.setCurrentIndex(form.preset_combo.findData("tiny"))
    form.hidden_spin.setValue(64)
    assert form.heads_spin.value() == 1  # follows hidden / 64
    form.vocab_spin.setValue(300)
    form.seq_spin.setValue(32)
    form.training.set_values({"steps": steps, "batch_size": 4, "log_every": 2, "eval_every": 10,
                              "eval_batches": 2, "warmup_steps": 2, "threads": 1})
    assert form.corpus.entries() == ["python-docs"]  # the default corpus
    form.corpus.set_entries([str(corpus)])
    form.out_edit.setText(str(out_dir))
    wait_count(qtbot, form)


def wait_count(qtbot, form) -> None:
    qtbot.waitUntil(lambda: form.parameter_count is not None and "counting" not in form.params_label.text(),
                    timeout=30000)


def numel(model) -> int:
    return sum(p.numel() for p in model.parameters())  # shared (tied) tensors counted once


def test_parameter_count_follows_edits(make_view, qtbot):
    """The live count equals the parameters of a transformers model built here with the same sizes."""
    from transformers import BertConfig, BertForMaskedLM, T5Config, T5ForConditionalGeneration

    _, view = make_view()
    form = view.form
    form.family_combo.setCurrentIndex(form.family_combo.findData("bert"))
    assert form.objective_name() == "mlm"
    form.preset_combo.setCurrentIndex(form.preset_combo.findData("mini"))
    assert (form.layers_spin.value(), form.hidden_spin.value(), form.heads_spin.value()) == (4, 256, 4)
    form.hidden_spin.setValue(192)
    assert form.heads_spin.value() == 3
    form.vocab_spin.setValue(1000)
    form.seq_spin.setValue(64)
    wait_count(qtbot, form)
    torch.manual_seed(0)
    bert = BertForMaskedLM(BertConfig(vocab_size=1000, hidden_size=192, num_hidden_layers=4, num_attention_heads=3,
                                      intermediate_size=768, max_position_embeddings=64))
    assert form.parameter_count == numel(bert)
    assert f"{numel(bert):,}" in form.params_label.text()
    # T5: the tokenizer has sentinels but no mask token, so only span corruption is offered.
    form.family_combo.setCurrentIndex(form.family_combo.findData("t5"))
    assert form.objective_name() == "t5-span"
    combo = form.objective_combo
    offered = {combo.itemData(i) for i in range(combo.count()) if combo.model().item(i).isEnabled()}
    assert "t5-span" in offered and "bart" not in offered and "mlm" not in offered
    form.preset_combo.setCurrentIndex(form.preset_combo.findData("tiny"))
    form.layers_spin.setValue(3)
    wait_count(qtbot, form)
    t5 = T5ForConditionalGeneration(T5Config(vocab_size=1000, d_model=128, num_layers=3, num_decoder_layers=3,
                                             num_heads=2, d_kv=64, d_ff=512))
    assert form.parameter_count == numel(t5)
    # A bad combination is explained, not sent.
    form.heads_spin.setValue(3)
    assert "not a multiple" in form.params_label.text()
    assert view.start_run() is None and "not a multiple" in view.message_bar.text()
    form.heads_spin.setValue(2)
    # The built-in corpus resolves to a real file; without any corpus, Start explains (inline) and sends nothing.
    docs = Path(form.corpus.resolved_paths()[0])
    assert docs.is_file() and docs.stat().st_size > 100_000
    form.corpus.list.selectAll()
    form.corpus.remove_button.click()
    assert form.corpus.entries() == [] and form.corpus.docs_button.isEnabled()
    assert view.start_run() is None
    assert view.message_bar.level() == "error" and "corpus" in view.message_bar.text()
    assert not view.services.has_lane  # nothing was submitted: no lane, no process


@pytest.mark.slow
def test_tiny_run_live_then_open_in_views(make_view, qtbot, tmp_path):
    window, view = make_view()
    corpus = write_corpus(tmp_path / "corpus.txt", n_documents=60)
    fill_tiny_gpt2(qtbot, view.form, corpus, steps=20, out_dir=tmp_path / "run")
    label_count = view.form.parameter_count
    run_id = view.start_run()
    assert run_id is not None and not view.start_button.isEnabled() and view.cancel_button.isEnabled()
    qtbot.waitUntil(lambda: view.plot.point_count("loss") > 0 or view.status == "finished", timeout=RUN_TIMEOUT)
    qtbot.waitUntil(lambda: view.status == "finished", timeout=RUN_TIMEOUT)
    # The plot holds exactly what the run logged (read independently from the store).
    store = RunStore(runs_db_path())
    try:
        logged = [r["value"] for r in store.metrics(run_id, "loss")]
        steps = [r["step"] for r in store.metrics(run_id, "loss")]
        val = [r["value"] for r in store.metrics(run_id, "validation_loss")]
    finally:
        store.close()
    assert steps == list(range(2, 21, 2))
    item = view.plot.items["loss"]
    assert list(item.yData) == logged and list(item.xData) == steps
    assert list(view.plot.items["validation_loss"].yData) == val and len(val) == 3  # steps 0, 10, 20
    assert view.plot.point_count("lr") == 10 and view.plot.point_count("tokens_per_s") == 10
    assert view.progress_bar.value() == 1000 and "step 20 of 20" in view.eta_label.text()
    # The parameter count shown before training is the trained model's.
    from transformers import AutoModelForCausalLM

    model_dir = tmp_path / "run" / "model"
    model = AutoModelForCausalLM.from_pretrained(model_dir)
    assert model.config.vocab_size == 300 and numel(model) == label_count
    assert view.open_button.isEnabled()
    # Issue 37: the tab says how fast it trained and which speed levers ran (read from the summary on disk).
    import json

    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["speed"]["chunked_loss"] is True and summary["speed"]["compiled"] is False
    shown = view.speed_label.text()
    assert f"{summary['tokens_per_s']:,.0f} tokens/s on average" in shown and "chunked LM loss" in shown
    assert "not used: torch.compile" in shown
    os.makedirs(SHOTS, exist_ok=True)
    qtbot.wait(100)
    window.grab().save(f"{SHOTS}/pretrain_finished.png")
    svg = window.export_view(tmp_path / "pretrain.svg")  # Ctrl+E on this tab: the curves
    assert b"<svg" in svg.read_bytes()[:400] and svg.stat().st_size > 5000
    # The Runs tab lists the run as finished with its last loss.
    window.show_view("runs")
    qtbot.waitUntil(lambda: window.view("runs").model.rowCount() == 1, timeout=5000)
    header, rows = window.view("runs").table_rows()
    row = dict(zip(header, rows[0]))
    assert row["Status"] == "finished" and row["Loss"] == f"{logged[-1]:.4f}" and row["Steps"] == "20"
    view.open_button.click()
    qtbot.waitUntil(lambda: window.loaded is not None, timeout=30000)
    assert Path(window.loaded.info.folder) == model_dir
    assert window.views.currentIndex() == 0  # the Tokens tab, with the new model loaded


@pytest.mark.slow
def test_cancel_keeps_a_checkpoint(make_view, qtbot, tmp_path):
    window, view = make_view()
    corpus = write_corpus(tmp_path / "corpus.txt", n_documents=60)
    fill_tiny_gpt2(qtbot, view.form, corpus, steps=100_000, out_dir=tmp_path / "long")
    run_id = view.start_run()
    qtbot.waitUntil(lambda: view.plot.point_count("loss") >= 1, timeout=RUN_TIMEOUT)
    assert view.eta_label.text().startswith("Running · step")
    view.cancel_button.click()
    assert not view.cancel_button.isEnabled() and "Cancelling" in view.status_label.text()
    qtbot.waitUntil(lambda: view.status == "cancelled", timeout=60000)
    store = RunStore(runs_db_path())
    try:
        checkpoints = [a for a in store.artifacts(run_id) if a["kind"] == "checkpoint"]
        assert store.status(run_id) == "cancelled"
    finally:
        store.close()
    assert checkpoints and Path(checkpoints[-1]["path"]).is_dir()
    assert view.start_button.isEnabled() and not view.open_button.isEnabled()
