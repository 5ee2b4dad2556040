"""The instruction-tuning lecture's steps show the run they name (issue 49.5): back on the before/after step
after the DPO step, the instruct run's answers come back named as that run (not the DPO run's line, and no new
run is trained); on the DPO step its run's results come back named; another model's runs are not shown again."""

from __future__ import annotations

import os

import pytest

from lm_workbench.finetune.state import RunResult

pytestmark = pytest.mark.timeout(90)

ROW = {"prompt": "Name the capital of France.", "reference": "Paris", "before_greedy": "the the",
       "after_greedy": "Paris", "before_sampled": "a", "after_sampled": "Paris", "category": "capital"}


def _instruct(run_id: int) -> RunResult:
    score = {"exact_match": 0.0, "rougeL": 0.1}
    return RunResult(run_id, "full", f"/tmp/out-{run_id}", {
        "task": "instruct", "before_after": {"rows": [ROW], "before": score, "after": {"exact_match": 1.0,
                                                                                      "rougeL": 1.0}}})


def _preference(run_id: int) -> RunResult:
    return RunResult(run_id, "full", f"/tmp/out-{run_id}", {"task": "preference"},
                     predictions=[{"text": "Capital of France?", "gold": "Paris", "predicted": "Paris"}])


def test_returning_to_a_step_shows_its_own_run_named(open_window, qtbot, tiny_models, fresh_home, monkeypatch):
    window = open_window(str(tiny_models["gpt2"]), "finetune", size=(1024, 768), about=False)
    view = window.view("finetune")
    started = []
    monkeypatch.setattr(view, "start_run", lambda *a, **k: started.append(view.state.task))  # no training here
    loaded = window.loaded
    # two finished runs as the tab keeps them: the instruct run #1, then the DPO run #2 from it
    view.form.set_values(task="instruct")
    view.remember_origin(1, loaded, "full")
    view.state.add_result(_instruct(1))
    view.show_finished(view.state.results[1])
    view.form.set_values(task="preference")
    view.remember_origin(2, loaded, "full")
    view.state.add_result(_preference(2))
    view.show_finished(view.state.results[2])
    assert "run 2" in view.run_origin.text()

    view.apply_preset_step({"task": "instruct", "show": "before_after"}, {})  # back to step 2
    assert started == []  # its run finished: not trained again
    assert "run 1" in view.run_origin.text() and "instruct" in view.run_origin.text()
    assert view.instruct.table.rowCount() == 1 and view.instruct.table.item(0, 3).text() == "Paris"
    assert view.results.result.run_id == 1
    shots = os.environ.get("LMW_SHOTS")
    if shots:
        window.grab().save(os.path.join(shots, "finetune-instruct-step-named-1024.png"))

    view.apply_preset_step({"task": "preference", "show": "margin"}, {})  # the DPO step: its own run, named
    assert started == [] and "run 2" in view.run_origin.text() and view.results.result.run_id == 2

    window.load_model(str(tiny_models["gpt2"]))  # the same spec loaded again: another model
    qtbot.waitUntil(lambda: window.loaded is not None and window.loaded is not loaded, timeout=30000)
    assert view.run_origin.text() == "" and view.instruct.table.rowCount() == 0
    view.apply_preset_step({"task": "preference", "show": "margin"}, {})
    assert started == ["preference"]  # the old model's DPO run is not shown as this model's: a new run trains
    assert view.run_origin.text() == ""
