"""A damaged run store (a copy cut short, a sync tool's conflict file): set aside, never deleted, the readable
runs kept, and one line that names both files, in the CLI and in the window."""

from __future__ import annotations

import json
import sqlite3

from tests.support.fault_helpers import cut_short, digest, store_with_runs
from lm_workbench.ui.app import report_start
from lm_workbench.cli.main import main
from lm_workbench.paths import runs_db_path
from lm_workbench.store import RunStore


def _warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("lm-workbench: warning:")]


def test_the_cli_sets_a_store_cut_short_aside_and_keeps_the_runs_it_can_read(fresh_home, capsys):
    path = runs_db_path()
    ids = store_with_runs(path)
    cut_short(path, 0.6)  # the runs' pages survive, the later metric pages are gone
    damaged = digest(path)

    assert main(["runs", "list", "--json"]) == 0
    captured = capsys.readouterr()
    asides = list(path.parent.glob("runs.sqlite3.corrupt-*"))
    assert len(asides) == 1 and digest(asides[0]) == damaged  # moved aside whole, not deleted
    warnings = _warnings(captured.err)
    assert len(warnings) == 1 and len(captured.err.strip().splitlines()) == 1  # one line, no traceback
    assert str(path) in warnings[0] and str(asides[0]) in warnings[0] and f"{len(ids)} run(s)" in warnings[0]
    listed = json.loads(captured.out)["runs"]
    assert sorted(r["id"] for r in listed) == ids
    assert {r["name"] for r in listed} == {f"run {i}" for i in range(len(ids))}
    assert all(r["status"] == "finished" and r["params"]["steps"] == 60 for r in listed)
    first = RunStore(path)
    try:  # the metrics that still read came along: the first run's, written first, are all there
        assert len(first.metrics(ids[0])) == 60 * 12
    finally:
        first.close()

    assert main(["runs", "list"]) == 0  # said once: the new store is sound
    assert _warnings(capsys.readouterr().err) == []


def test_a_file_that_is_not_a_database_is_set_aside_and_the_store_works_again(fresh_home, capsys):
    path = runs_db_path()
    path.write_bytes(b"<<<<<<< a sync tool's conflict copy\n" * 200)
    assert main(["runs", "list", "--json"]) == 0
    captured = capsys.readouterr()
    (aside,) = path.parent.glob("runs.sqlite3.corrupt-*")
    assert aside.read_bytes().startswith(b"<<<<<<< a sync tool")
    (warning,) = _warnings(captured.err)
    assert "not a database" in warning and "a new, empty one was started" in warning
    assert json.loads(captured.out) == {"runs": []}
    with RunStore(path) as store:  # runs can be recorded again
        store.finish_run(store.create_run("pretrain"))
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"
    conn.close()


def test_the_window_says_so_at_start_and_its_runs_tab_shows_the_kept_runs(fresh_home, open_window, qtbot):
    path = runs_db_path()
    ids = store_with_runs(path, n_runs=3, steps=40)
    cut_short(path, 0.6)
    window = open_window(size=(1000, 650), about=False)
    report_start(window)  # what the application does once the window is shown
    (aside,) = path.parent.glob("runs.sqlite3.corrupt-*")
    bar = window.message_bar
    assert bar.level() == "warning" and "\n" not in bar.text()
    assert str(path) in bar.text() and str(aside) in bar.text() and "3 run(s)" in bar.text()
    window.show_view("runs")
    browser = window.view("runs")
    qtbot.waitUntil(lambda: browser.model.rowCount() == 3, timeout=5000)
    assert sorted(int(r[0]) for r in browser.table_rows()[1]) == ids
    assert browser.message_bar.level() != "error" and "Unexpected" not in bar.text()
