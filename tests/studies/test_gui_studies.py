"""The Runs tab's Studies list: the cost before Start, a user's study started on the long-run lane, its table
filling live as cells finish (a real child process, a real store), one click to a cell's run, and the whole study
exported as one folder."""

from __future__ import annotations

import json
import os

import pytest

from lm_workbench.paths import runs_db_path
from lm_workbench.store.run_store import RunStore

pytestmark = pytest.mark.timeout(150)
SHOTS = os.environ.get("LMWB_SHOTS")  # a folder: the test also saves a screenshot of the panel there


def study_file(tmp_path):
    cells = [{"id": "lr-a", "row": "TF-IDF C=1", "kind": "tfidf-lr", "settings": {"train": "demo", "classifier": {"C": 1}}},
             {"id": "lstm", "row": "BiLSTM", "kind": "bilstm",
              "settings": {"train": "demo", "epochs": 3, "embedding": 16, "hidden": 16}},
             {"id": "lr-b", "row": "TF-IDF C=10", "kind": "tfidf-lr", "settings": {"train": "demo", "classifier": {"C": 10}}}]
    path = tmp_path / "gui-study.json"
    path.write_text(json.dumps({
        "format": "lm-workbench-study/1", "name": "gui-study", "title": "GUI study", "cells": cells,
        "columns": [{"name": "accuracy", "metric": "accuracy"}, {"name": "time s", "metric": "wall_s"}],
        "figure": {"type": "bars", "y": "accuracy"},
        "published": {"source": "a made-up source for the test", "columns": {"acc": "accuracy"},
                      "values": {"BiLSTM": {"acc": 0.9}}}}), encoding="utf-8")
    return path


def filled(panel):
    col = 1  # "accuracy"
    return [panel.table.item(r, col).text() not in ("–", "") if panel.table.item(r, col) else False
            for r in range(panel.table.rowCount())]


def test_a_study_fills_its_table_live_and_links_its_cells(open_window, fresh_home, tmp_path, qtbot):
    window = open_window(view="runs", size=(1600, 900), about=False)
    browser = window.view("runs")
    panel = browser.studies
    assert panel.list.count() == 7  # the built-in studies
    panel.scale.setCurrentText("tiny")
    panel.open_file(study_file(tmp_path))
    qtbot.waitUntil(lambda: panel.cost.text().startswith("Before Start"), timeout=20000)
    assert "3 cell(s): 3 run(s) to make" in panel.cost.text()
    assert [panel.table.item(r, 0).text() for r in range(3)] == ["TF-IDF C=1", "BiLSTM", "TF-IDF C=10"]
    assert not any(filled(panel))
    panel.timer.setInterval(150)
    run_id = panel.start()
    assert run_id is not None
    seen = []
    progress = set()

    def done():
        state = filled(panel)
        seen.append(tuple(state))
        if panel.progress.text().startswith("cell "):
            progress.add(panel.progress.text().split(":")[0])
        return all(state)

    try:
        qtbot.waitUntil(done, timeout=120000)
    except Exception:
        with RunStore(runs_db_path()) as store:
            print("DEBUG", panel.progress.text(), [(r["id"], r["kind"], r["status"], r["error"]) for r in store.list_runs()], panel.out_dir, seen[-1:])
        raise
    partial = [s for s in seen if any(s) and not all(s)]
    assert partial, seen  # filled in while the study ran, not only at its end
    assert progress and all(p.startswith("cell ") and " of 3" in p for p in progress)
    with RunStore(runs_db_path()) as store:
        qtbot.waitUntil(lambda: store.status(run_id) == "finished", timeout=30000)
        cells = [r for r in store.list_runs() if r["kind"] in ("tfidf-lr", "bilstm")]
        assert len(cells) == 3 and all(r["status"] == "finished" for r in cells)
        bilstm = next(r for r in cells if r["kind"] == "bilstm")
        acc = [m["value"] for m in store.metrics(bilstm["id"], "accuracy")][-1]
    panel.refresh()
    assert panel.table.item(1, 1).text() == f"{acc:.4g}"
    assert panel.table.item(1, 3).text() == "0.9"  # the published value beside
    assert panel.figure.pixmap() is not None and not panel.figure.pixmap().isNull()
    # one click (double-click) to a cell's run
    selected = panel.open_cell_run(1)
    assert selected == bilstm["id"] and browser.selected_run_ids() == [bilstm["id"]]
    # a deleted cell run shows as missing
    with RunStore(runs_db_path()) as store:
        store.delete_run(bilstm["id"])
    panel.refresh()
    assert panel.table.item(1, panel.table.columnCount() - 1).text() == "missing"
    out = panel.export(tmp_path / "export")
    assert {p.name for p in out.iterdir()} >= {"table.csv", "figure.png", "figure.svg", "table.json", "cells"}
    if SHOTS:
        window.grab().save(os.path.join(SHOTS, "studies-panel.png"))
