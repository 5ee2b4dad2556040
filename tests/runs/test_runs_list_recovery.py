"""Listing runs applies the start-up recovery: a run whose process died shows as interrupted at once,
in ``lm-workbench runs list`` and in ``RunStore.list_runs``; a run whose process lives stays running."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time

from lm_workbench.cli.main import main
from lm_workbench.paths import runs_db_path
from lm_workbench.store import RunStore


def killed_pid() -> int:
    """The id of a process that was started, then killed (and reaped)."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    proc.kill()
    proc.wait()
    return proc.pid


def started_run(store: RunStore, pid: int, *, beat_ago_s: float) -> int:
    run_id = store.create_run("pretrain", name=f"pid {pid}", params={}, status="queued")
    store.start_run(run_id, pid=pid)
    with sqlite3.connect(store.path) as db:
        db.execute("UPDATE runs SET heartbeat_at = ? WHERE id = ?", (time.time() - beat_ago_s, run_id))
    return run_id


def test_runs_list_shows_a_killed_run_as_interrupted_and_a_live_one_as_running(fresh_home, capsys):
    dead = killed_pid()
    with RunStore(runs_db_path()) as store:
        killed = started_run(store, dead, beat_ago_s=120)
        live = started_run(store, os.getpid(), beat_ago_s=120)  # a silent heartbeat, but its process lives
        just_now = started_run(store, dead, beat_ago_s=0)  # too early to tell: the same rule as at start-up
    code = main(["runs", "list", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    runs = {r["id"]: r for r in json.loads(out)["runs"]}
    assert runs[killed]["status"] == "interrupted" and str(dead) in runs[killed]["error"]
    assert runs[live]["status"] == "running" and runs[live]["error"] is None
    assert runs[just_now]["status"] == "running"
    code = main(["runs", "list"])
    table = capsys.readouterr().out.splitlines()
    assert code == 0 and [line.split()[2] for line in table] == ["running", "running", "interrupted"]


def test_list_runs_recovers_before_filtering(tmp_path):
    with RunStore(tmp_path / "runs.sqlite") as store:
        dead = started_run(store, killed_pid(), beat_ago_s=120)
        live = started_run(store, os.getpid(), beat_ago_s=120)
        assert {r["id"]: r["status"] for r in store.list_runs(recover=False)} == {dead: "running", live: "running"}
        assert [r["id"] for r in store.list_runs(status="running")] == [live]
        assert [r["id"] for r in store.list_runs(status="interrupted")] == [dead]
        assert "vanished" in store.get_run(dead)["error"]
