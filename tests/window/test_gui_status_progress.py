"""Progress with a total (issue 49, item 7): the status bar's bar, its time left, the long-run section, and the
run store's planned length that a window following a run reads.

(A real fine-tuning run's "step k of n", its bar and the status bar naming it are checked in
``tests/finetune/test_gui_finetune.py::test_cancel_stops_the_run_and_the_queue``.)
"""

from __future__ import annotations

import sqlite3

import pytest

from lm_workbench.engine.progress import Progress
from lm_workbench.store import SCHEMA_VERSION, RunStore, migrations
from lm_workbench.ui.run_tracking.run_follower import RunProgress, describe_progress
from lm_workbench.ui.run_tracking.run_watch import describe_run, run_title
from lm_workbench.ui.window import status_bar
from lm_workbench.ui.window.status_bar import READY, JobStatusBar, PhasePace


def test_time_left_is_the_pace_of_the_current_phase():
    pace = PhasePace()
    assert pace.eta_s(Progress(0, 100, "encoding"), 10.0) is None  # the phase starts: no pace yet
    assert pace.eta_s(Progress(10, 100), 12.0) is None  # under 3 s in
    assert pace.eta_s(Progress(20, 100), 14.0) == pytest.approx(4.0 * 0.8 / 0.2)  # 20 % in 4 s: 16 s for 80 %
    assert pace.eta_s(Progress(5, 40, "next phase"), 15.0) is None  # another total: a new phase, new origin
    assert pace.eta_s(Progress(25, 40), 19.0) == pytest.approx(4.0 * (15 / 40) / (20 / 40))
    assert pace.eta_s(Progress(0, 0, "uncounted"), 20.0) is None


def test_status_bar_bar_follows_the_reports_and_says_the_time_left(qtbot, monkeypatch):
    bar = JobStatusBar()
    qtbot.addWidget(bar)
    clock = iter([100.0, 101.0, 105.0, 106.0])
    monkeypatch.setattr(status_bar.time, "monotonic", lambda: next(clock))
    bar.set_busy(True)
    bar.show_progress(Progress(0, 0, "reading the corpus"))
    assert bar.progress_bar.maximum() == 0 and bar.message() == "Reading the corpus…"  # indeterminate
    bar.show_progress(Progress(1, 10, "encoding: 1/10 batches"))
    assert (bar.progress_bar.maximum(), bar.progress_bar.value()) == (1000, 100)
    bar.show_progress(Progress(5, 10, "encoding: 5/10 batches"))  # 40 % in 4 s: 5 s for the last 50 %
    assert bar.message() == "Encoding: 5/10 batches… about 0:05 left"
    bar.show_progress(Progress(0, 0, "measuring"))  # a phase without a total: indeterminate again
    assert bar.progress_bar.maximum() == 0 and "left" not in bar.message()
    bar.set_busy(False)


def test_long_run_section_names_the_run_and_replaces_ready(qtbot):
    bar = JobStatusBar()
    qtbot.addWidget(bar)
    bar.show()
    assert bar.message() == READY and not bar.long_run_label.isVisible()
    title = run_title({"id": 3, "kind": "finetune", "name": "lora · seq-cls", "method": "lora"})
    assert title == "Fine-tuning run #3 · lora · seq-cls"
    bar.set_long_run(describe_run(title, None), None)
    assert bar.long_run_label.text() == "Fine-tuning run #3 · lora · seq-cls: waiting to start"
    assert bar.long_run_bar.maximum() == 0 and bar.message() != READY
    progress = RunProgress("running", 10, 60, 42.0, None, None)
    assert describe_progress(progress) == "step 10 of 60 · about 0:42 left"
    bar.set_long_run(describe_run(title, progress), progress.fraction)
    assert bar.long_run_label.text() == "Fine-tuning run #3 · lora · seq-cls: step 10 of 60 · about 0:42 left"
    assert (bar.long_run_bar.maximum(), bar.long_run_bar.value()) == (1000, 167)
    bar.set_context("tokens")  # another tab with nothing to say: no "Ready" while the run works
    assert bar.message() == "" and bar.long_run_label.isVisible()
    bar.set_long_run(None)
    assert bar.message() == READY and not bar.long_run_label.isVisible()


def test_the_store_keeps_a_runs_planned_length_and_upgrades_an_older_file(tmp_path, monkeypatch):
    path = tmp_path / "runs.sqlite3"
    monkeypatch.setattr(migrations, "MIGRATIONS", migrations.MIGRATIONS[:1])  # a file as version 1 wrote it
    old = RunStore(path)
    before = old.create_run("finetune", params={})
    old.close()
    monkeypatch.undo()
    store = RunStore(path)
    try:
        with sqlite3.connect(path) as conn:
            assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION >= 2
        assert store.get_run(before)["total_steps"] is None
        run = store.create_run("finetune", params={})
        store.set_total_steps(run, 4600)
        assert store.get_run(run)["total_steps"] == 4600
    finally:
        store.close()
