"""The Runs tab's Merge…: two real LoRA runs selected, the dialog filled in, the merge run as a job and recorded."""

from __future__ import annotations

import dataclasses
import json
import shlex
from pathlib import Path

import pytest
from safetensors.torch import load_file

from tests.support.finetune_runs import lora_spec, sentiment_files
from lm_workbench.paths import runs_db_path
from lm_workbench.store.run_store import RunStore

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def two_runs(tiny_models, tmp_path, fresh_home):
    """Two finished LoRA runs (seeds 1 and 2, two steps each) recorded in a fresh run store; their ids and folders."""
    from lm_workbench.finetune.train import run_finetune

    data = sentiment_files(tmp_path / "data")
    store = RunStore(runs_db_path())
    ids, folders = [], []
    for seed in (1, 2):
        spec = dataclasses.replace(lora_spec(tiny_models["bert"], data, tmp_path / f"run{seed}", epochs=0.34),
                                   seed=seed, lr=1e-2)
        run_finetune(spec)
        run_id = store.create_run("finetune", name=spec.title(), model="bert", method="lora", params=spec.to_dict())
        store.start_run(run_id)
        store.finish_run(run_id, "finished")
        ids.append(run_id)
        folders.append(Path(spec.out_dir))
    store.close()
    return ids, folders


def test_merge_selected_runs_as_a_recorded_job(open_window, qtbot, two_runs, tmp_path):
    ids, folders = two_runs
    window = open_window(view="runs", size=(1280, 860), about=False)
    browser = window.view("runs")
    qtbot.waitUntil(lambda: browser.model.rowCount() == 2, timeout=5000)
    browser.select_runs([ids[0]])
    assert browser.merge_button.isEnabled()  # one run: folded
    browser.select_runs(ids)
    assert browser.merge_button.isEnabled()
    shown = [folders[ids.index(i)] for i in browser.selected_run_ids()]  # the table's order (newest first)
    browser.merge_button.click()
    dialog = browser.merge_dialog
    assert dialog is not None and dialog.isVisible() and dialog.ok_button.text() == "Merge"
    hows = [dialog.how.itemText(i) for i in range(dialog.how.count())]
    assert hows == ["linear", "linear-factors", "ties", "dare", "dare-ties"] and "Exactly Σ w·ΔW" in dialog.note.text()
    assert not dialog.density.isEnabled()
    dialog.how.setCurrentText("linear-factors")
    assert "cross terms" in dialog.note.text() and not dialog.density.isEnabled()
    dialog.weights.setText("0, 0")  # all zero: refused in the window, nothing recorded
    dialog.ok_button.click()
    qtbot.waitUntil(lambda: "all 0" in browser.message_bar.text(), timeout=5000)
    assert browser.merge_button.isEnabled() and browser.model.rowCount() == 2
    browser.merge_button.click()
    dialog = browser.merge_dialog
    dialog.how.setCurrentText("ties")
    assert dialog.density.isEnabled() and not dialog.seed.isEnabled() and "TIES" in dialog.note.text()
    dialog.weights.setText("0.4,0.6")
    out = tmp_path / "merged-ties"
    dialog.out.setText(str(out))
    dialog.grab().save("/work/coord/shots/peft-merge-dialog.png") if Path("/work/coord/shots").is_dir() else None
    dialog.ok_button.click()
    # the job's own progress says "merged into …" first: wait for the result's line ("Run #k: …")
    qtbot.waitUntil(lambda: browser.message_bar.text().startswith(("Run #", "Could not")), timeout=60000)
    said = browser.message_bar.text()
    assert "combined (ties, weights 0.4, 0.6)" in said and "heads" in said
    summary = json.loads((out / "merge.json").read_text(encoding="utf-8"))
    assert summary["weights"] == [0.4, 0.6] and summary["how"] == "ties"
    assert summary["sources"] == [str(f.resolve()) for f in shown]  # the weights go with the runs in that order
    assert load_file(str(out / "adapter" / "adapter_model.safetensors"))  # the combined adapter is there
    store = RunStore(runs_db_path())
    merged = [r for r in store.list_runs() if r["kind"] == "finetune-merge"]
    store.close()
    assert len(merged) == 1 and merged[0]["status"] == "finished"
    qtbot.waitUntil(lambda: browser.model.rowCount() == 3, timeout=5000)
    line = shlex.split(browser.cli_command(merged[0]["id"]))
    assert line[:4] == ["lm-workbench", "finetune-merge", str(shown[0]), str(shown[1])]
    assert line[line.index("--how") + 1] == "ties" and line[line.index("--weights") + 1] == "0.4,0.6"
    if Path("/work/coord/shots").is_dir():
        window.grab().save("/work/coord/shots/peft-merge-runs.png")
