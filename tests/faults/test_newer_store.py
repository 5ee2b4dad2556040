"""A run store written by a newer version: opened read-only with a message, never migrated down, and every
write refused with one line (exit 1, the machine's fault, not bad input)."""

from __future__ import annotations

import json
import sqlite3

import pytest

from tests.support.fault_helpers import digest
from lm_workbench.ui.app import report_start
from lm_workbench.cli.common import run_reporting_errors
from lm_workbench.cli.main import main
from lm_workbench.paths import runs_db_path
from lm_workbench.store import SCHEMA_VERSION, RunStore
from lm_workbench.store.run_store import StoreReadOnly


@pytest.fixture
def newer_store(fresh_home):
    path = runs_db_path()
    with RunStore(path) as store:
        run_id = store.create_run("pretrain", name="from the future")
        store.log_metrics(run_id, 1, {"loss": 2.5})
        store.finish_run(run_id)
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()  # the last connection: its write-ahead log goes into the file
    return path, run_id


def test_the_cli_lists_a_newer_store_read_only_and_refuses_writes_in_one_line(newer_store, capsys):
    path, run_id = newer_store
    before = digest(path)
    assert main(["runs", "list", "--json"]) == 0
    captured = capsys.readouterr()
    assert [r["id"] for r in json.loads(captured.out)["runs"]] == [run_id]
    (line,) = captured.err.strip().splitlines()
    assert line.startswith("lm-workbench: warning:") and str(path) in line and "read-only" in line
    assert f"schema {SCHEMA_VERSION + 1}" in line

    store = RunStore(path)
    try:
        assert store.read_only
        with pytest.raises(StoreReadOnly, match="read-only"):
            store.create_run("pretrain")
        assert run_reporting_errors(lambda: store.log_metrics(run_id, 2, {"loss": 1.0})) == 1
        (error,) = capsys.readouterr().err.strip().splitlines()
        assert error.startswith(f"lm-workbench: error: the run store {path} is read-only") and "update" in error
    finally:
        store.close()
    assert digest(path) == before  # not migrated down, not written
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1
    conn.close()


def test_the_window_says_the_store_is_read_only(newer_store, open_window):
    window = open_window(size=(1000, 650), about=False)
    report_start(window)
    assert window.message_bar.level() == "warning"
    assert "read-only" in window.message_bar.text() and str(newer_store[0]) in window.message_bar.text()
