"""A study's cost before it starts (``lm_workbench.studies.estimate``): runs of another model are no guide (a tiny
model's fine-tuning once told "about 46 s" for MiniLM's three epochs), the same model's are scaled by the work."""

from __future__ import annotations

import json

import pytest

from lm_workbench.paths import runs_db_path
from lm_workbench.store.run_store import RunStore
from lm_workbench.studies.estimate import DEFAULT_S, estimate
from lm_workbench.studies.file import load_study


def _study(tmp_path, settings: dict):
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"format": "lm-workbench-study/1", "name": "s", "cells": [
        {"id": "c", "kind": "finetune", "settings": {"task": "seq-cls", "train": "demo:seq-cls", "method": "lora", **settings}}],
        "columns": [{"name": "accuracy", "metric": "accuracy"}]}), encoding="utf-8")
    return load_study(path, scale="lecture")


def _earlier(store, model: str, epochs: int, wall: float) -> None:
    run_id = store.create_run("finetune", model=model, params={"model": model, "task": "seq-cls", "method": "lora",
                                                              "train": "other.csv", "epochs": epochs})
    store.start_run(run_id)
    store.finish_run(run_id, "finished")
    db = store._db().conn  # the wall time as the store keeps it
    db.execute("UPDATE runs SET started_at = 1000, finished_at = ? WHERE id = ?", (1000 + wall, run_id))
    db.commit()


@pytest.mark.parametrize("earlier, cell, seconds, basis", [
    ([("tiny", 1, 5.0)], {"model": "minilm", "epochs": 3}, DEFAULT_S["finetune"], "rough default"),  # the report
    ([("minilm", 1, 40.0)], {"model": "minilm", "epochs": 3}, 120.0, "1 earlier finetune run(s) of minilm"),
    ([("minilm", 2, 40.0), ("minilm", 4, 100.0)], {"model": "minilm", "epochs": 1}, 22.5, "2 earlier"),  # median of 20, 25
    ([("minilm", 1, 40.0)], {"model": "minilm"}, 40.0, "1 earlier"),  # the cell does not say: unscaled
])
def test_the_estimate_goes_by_the_same_model_scaled_by_the_work(earlier, cell, seconds, basis, tmp_path,
                                                                 fresh_home):
    store = RunStore(runs_db_path())
    try:
        for model, epochs, wall in earlier:
            _earlier(store, model, epochs, wall)
        got = estimate(_study(tmp_path, cell), store)
    finally:
        store.close()
    assert got["seconds"] == pytest.approx(seconds) and basis in got["basis"]["c"]
