"""A lecture step opens a study's table (view ``runs``, settings ``{"study", "scale"}``): before any cell has
run it says how to run the study; after a run it shows the table from the recorded runs. An unknown study is
refused by the preset schema, naming the step."""

from __future__ import annotations

import json
import re
import threading

import pytest

from lm_workbench.lectures.schema import PresetError, parse_preset
from lm_workbench.paths import runs_db_path
from lm_workbench.store import RunStore
from tests.support.lecture_play import WAIT

pytestmark = pytest.mark.timeout(120)


def study_file(tmp_path):
    cells = [{"id": f"c{c}", "row": f"C={c}", "kind": "tfidf-lr", "settings": {"train": "demo", "classifier": {"C": c}}}
             for c in (1, 10)]
    path = tmp_path / "step-study.json"
    path.write_text(json.dumps({"format": "lm-workbench-study/1", "name": "step-study", "title": "Step study",
                                "cells": cells, "columns": [{"name": "accuracy", "metric": "accuracy"}],
                                "figure": {"type": "none"}}), encoding="utf-8")
    return path


def preset(study, scale="tiny"):
    return {"format": "lm-workbench-preset/2", "name": "study-step", "title": "Study step", "model": "minilm",
            "steps": [{"view": "runs", "caption": "the study's table", "settings": {"study": study, "scale": scale}}]}


@pytest.mark.parametrize(("study", "scale", "where"), [
    ("why-sbret", "lecture", "steps[0].settings.study: unknown study 'why-sbret'"),
    ("", "lecture", "steps[0].settings.study: must be"),
    ("why-sbert", "huge", "steps[0].settings.scale: must be one of tiny, lecture"),
])
def test_the_schema_refuses_an_unknown_study_naming_the_step(study, scale, where):
    with pytest.raises(PresetError, match="^" + re.escape(f"mine.json: {where}")):
        parse_preset(preset(study, scale), "mine.json")
    assert parse_preset(preset("why-sbert", "lecture"), "mine.json").steps[0].settings["study"] == "why-sbert"


def test_a_step_shows_how_to_run_a_study_then_its_table(open_window, fresh_home, minilm, tmp_path, qtbot):
    from lm_workbench.studies.runner import run_cells
    from lm_workbench.studies.runs import StudySpec

    path = study_file(tmp_path)
    window = open_window("minilm", about=False)
    panel = window.view("runs").studies
    assert window.lectures.start(parse_preset(preset(str(path)), "p.json"))
    qtbot.waitUntil(lambda: window.view_host.current_entry().id == "runs" and panel.study is not None, timeout=WAIT)
    assert panel.scale.currentText() == "tiny" and panel.list.currentItem().data(256) == str(path)
    assert f"lm-workbench study run \"{path}\" --scale tiny" in panel.progress.text()
    assert [panel.table.item(r, 1).text() for r in range(2)] == ["–", "–"]
    assert window.view_host.preset_state("runs") == ({"study": str(path), "scale": "tiny"}, {})
    window.lectures.runner.stop()

    study, out = StudySpec(study=str(path), scale="tiny").load()  # the default folder, as `study run` uses
    with RunStore(runs_db_path()) as store:
        list(run_cells(study, store, out, threading.Event()))
        runs = {r["name"]: r["id"] for r in store.list_runs(recover=False)}
        accuracy = [store.metrics(run_id, "accuracy")[-1]["value"] for run_id in sorted(runs.values())]
    assert len(runs) == 2
    panel.progress.setText("")
    assert window.lectures.start(parse_preset(preset(str(path)), "p.json"))
    qtbot.waitUntil(lambda: panel.table.item(0, 1).text() != "–", timeout=WAIT)
    assert [panel.table.item(r, 1).text() for r in range(2)] == [f"{a:.4g}" for a in accuracy]
    assert "No cell" not in panel.progress.text()
