"""The SQLite run store: migrations, WAL, concurrency, runs/metrics/artifacts."""

from __future__ import annotations

import multiprocessing
import os
import sqlite3
import subprocess
import sys
import threading
import time

import pytest
import sqlite_utils

from tests.support import lane_jobs
from lm_workbench.store import SCHEMA_VERSION, RunStore, migrate, migrations, pid_alive


@pytest.fixture
def store(tmp_path, fresh_home):
    s = RunStore(tmp_path / "runs.sqlite3")
    yield s
    s.close()


def user_version(path) -> int:
    with sqlite3.connect(path) as conn:
        return conn.execute("PRAGMA user_version").fetchone()[0]


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


# -- migrations ----------------------------------------------------------------

def test_fresh_db_reaches_schema_version(store):
    assert SCHEMA_VERSION == len(migrations.MIGRATIONS) >= 1
    assert user_version(store.path) == SCHEMA_VERSION
    db = sqlite_utils.Database(store.path)
    assert {"runs", "metrics", "artifacts"} <= set(db.table_names())
    assert {"heartbeat_at", "pid", "params", "provenance", "cli_command", "error"} <= set(
        db["runs"].columns_dict)
    assert any(i.columns == ["run_id", "name", "step"] for i in db["metrics"].indexes)
    db.close()


def test_migrate_again_is_a_no_op(store):
    run_id = store.create_run("probe", params={"a": 1})
    db = sqlite_utils.Database(store.path)
    assert migrate(db) == []
    assert user_version(store.path) == SCHEMA_VERSION
    db.close()
    reopened = RunStore(store.path)
    assert reopened.get_run(run_id)["params"] == {"a": 1}
    reopened.close()


def test_version_0_file_with_older_layout_is_upgraded(tmp_path):
    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE runs (id INTEGER PRIMARY KEY, kind TEXT, status TEXT, "
                     "created_at REAL)")
        conn.execute("INSERT INTO runs VALUES (7, 'pre-train', 'finished', 1.0)")
    assert user_version(path) == 0
    s = RunStore(path)
    assert user_version(path) == SCHEMA_VERSION
    old = s.get_run(7)
    assert (old["kind"], old["status"], old["heartbeat_at"]) == ("pre-train", "finished", None)
    new = s.create_run("probe", params={}, model="m")
    s.log_metrics(new, 0, {"acc": 1.0})
    assert s.metrics(new)[0]["value"] == 1.0
    s.close()


def test_appended_migration_applies_once_and_failures_roll_back(store, monkeypatch):
    def m002(db):
        db["runs"].add_column("notes", str)

    def m003_broken(db):
        db["scratch"].create({"x": int})
        raise RuntimeError("bad migration")

    monkeypatch.setattr(migrations, "MIGRATIONS", [*migrations.MIGRATIONS, m002])
    db = sqlite_utils.Database(store.path)
    assert migrate(db) == [SCHEMA_VERSION + 1]
    assert "notes" in db["runs"].columns_dict
    monkeypatch.setattr(migrations, "MIGRATIONS", [*migrations.MIGRATIONS, m003_broken])
    with pytest.raises(RuntimeError, match="bad migration"):
        migrate(db)
    assert user_version(store.path) == SCHEMA_VERSION + 1
    assert "scratch" not in db.table_names()
    db.close()


def test_newer_file_is_not_migrated_down(tmp_path):
    path = tmp_path / "future.sqlite3"
    RunStore(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 5}")
    db = sqlite_utils.Database(path)
    with pytest.raises(RuntimeError, match="newer"):
        migrate(db)
    db.close()
    with RunStore(path) as store:  # opened read-only instead (tests/faults: the message, the refused writes)
        assert store.read_only and store.list_runs() == []
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 5


# -- connection settings and concurrency ----------------------------------------

def test_wal_mode_and_pragmas(store):
    assert store.journal_mode == "wal"
    with sqlite3.connect(store.path) as conn:  # WAL is persistent in the file
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn = store._db().conn
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 10_000


def test_each_thread_gets_its_own_connection(store):
    main_conn = store._db().conn
    other = []
    t = threading.Thread(target=lambda: other.append(store._db().conn))
    t.start()
    t.join()
    assert other[0] is not main_conn


@pytest.mark.timeout(60)
def test_concurrent_writes_from_thread_and_child_process(store):
    run_id = store.create_run("pre-train", params={})
    ctx = multiprocessing.get_context("spawn")
    ready, go = ctx.Event(), ctx.Event()
    child = ctx.Process(target=lane_jobs.write_metrics,
                        args=(str(store.path), run_id, "child", 200, ready, go))
    child.start()
    assert ready.wait(30), "child did not open the store"

    def thread_body():
        go.wait(30)
        for step in range(200):
            store.log_metrics(run_id, step, {"thread": float(step)})

    t = threading.Thread(target=thread_body)
    t.start()
    for step in range(200):  # and this thread, at the same time
        if step == 0:
            go.set()
        store.log_metrics(run_id, step, {"main": float(step)})
    t.join(30)
    child.join(30)
    assert child.exitcode == 0
    for name in ("child", "thread", "main"):
        rows = store.metrics(run_id, name)
        assert [r["step"] for r in rows] == list(range(200)), name
        assert [r["value"] for r in rows] == [float(i) for i in range(200)]


# -- runs, metrics, artifacts -----------------------------------------------------

def test_run_lifecycle(store):
    run_id = store.create_run("fine-tune", name="ft", model="bert", method="mlm",
                              params={"lr": 1e-4, "path": store.path},
                              provenance={"seed": 3}, cli_command="lm-workbench ft")
    run = store.get_run(run_id)
    assert run["status"] == "queued" and run["params"]["lr"] == 1e-4
    assert run["params"]["path"] == str(store.path) and run["provenance"] == {"seed": 3}
    store.start_run(run_id, pid=1234)
    run = store.get_run(run_id)
    assert (run["status"], run["pid"]) == ("running", 1234) and run["started_at"]
    before = run["heartbeat_at"]
    time.sleep(0.01)
    store.heartbeat(run_id)
    assert store.get_run(run_id)["heartbeat_at"] > before
    store.log_metrics(run_id, 1, {"loss": 2.0, "acc": 0.25}, time=5.0)
    store.log_metrics(run_id, 0, {"loss": 3.0})
    assert [(m["step"], m["value"]) for m in store.metrics(run_id, "loss")] == [(0, 3.0), (1, 2.0)]
    assert store.metric_names(run_id) == ["acc", "loss"]
    assert store.metrics(run_id, "acc")[0]["time"] == 5.0
    art = store.add_artifact(run_id, "ckpt", "checkpoint", store.path, sha256="00")
    assert store.artifacts(run_id)[0]["id"] == art
    assert store.finish_run(run_id, "failed", error="ValueError: x")
    assert not store.finish_run(run_id, "finished", if_status=("running",))
    run = store.get_run(run_id)
    assert (run["status"], run["error"]) == ("failed", "ValueError: x") and run["finished_at"]
    with pytest.raises(ValueError):
        store.finish_run(run_id, "running")
    with pytest.raises(KeyError):
        store.start_run(run_id + 100)


def test_list_runs_filters_and_orders(store):
    a = store.create_run("probe", params={})
    b = store.create_run("pre-train", params={})
    c = store.create_run("probe", params={})
    assert [r["id"] for r in store.list_runs()] == [c, b, a]
    assert [r["id"] for r in store.list_runs(kind="probe")] == [c, a]
    store.finish_run(a, "finished")
    assert [r["id"] for r in store.list_runs(kind="probe", status="finished")] == [a]


def test_delete_run_cascades(store):
    keep = store.create_run("probe", params={})
    gone = store.create_run("probe", params={})
    for rid in (keep, gone):
        store.log_metrics(rid, 0, {"x": 1.0})
        store.add_artifact(rid, "a", "file", "/x")
    assert store.delete_run(gone) and not store.delete_run(gone)
    with pytest.raises(KeyError):
        store.get_run(gone)
    assert store.metrics(gone) == [] and store.artifacts(gone) == []
    assert len(store.metrics(keep)) == 1 and len(store.artifacts(keep)) == 1
    # The schema itself cascades too, for a plain DELETE.
    conn = store._db().conn
    conn.execute("DELETE FROM runs WHERE id = ?", [keep])
    conn.commit()
    assert store.metrics(keep) == [] and store.artifacts(keep) == []


# -- interrupted runs ---------------------------------------------------------------

def test_pid_alive(monkeypatch):
    pid = dead_pid()
    assert pid_alive(os.getpid()) and not pid_alive(pid) and not pid_alive(None)
    monkeypatch.setitem(sys.modules, "psutil", None)  # the os.kill fallback
    assert pid_alive(os.getpid()) and not pid_alive(pid)


def test_mark_interrupted(store):
    gone = dead_pid()
    dead_old = store.create_run("pre-train", params={})
    alive_old = store.create_run("pre-train", params={})
    dead_fresh = store.create_run("pre-train", params={})
    queued = store.create_run("pre-train", params={})
    store.start_run(dead_old, pid=gone)
    store.start_run(alive_old, pid=os.getpid())
    store.start_run(dead_fresh, pid=gone)
    conn = store._db().conn
    conn.execute("UPDATE runs SET heartbeat_at = ? WHERE id IN (?, ?)",
                 [time.time() - 120, dead_old, alive_old])
    conn.commit()
    assert store.mark_interrupted(stale_after_s=30.0) == [dead_old]
    run = store.get_run(dead_old)
    assert run["status"] == "interrupted" and str(gone) in run["error"] and run["finished_at"]
    assert [store.status(r) for r in (alive_old, dead_fresh, queued)] == [
        "running", "running", "queued"]
    assert store.mark_interrupted(stale_after_s=30.0) == []


def test_queued_runs_of_a_dead_session_are_marked_interrupted(store):
    """A run queued by a session that crashed never starts: the next start says so; a live session's queue is kept."""
    gone = dead_pid()
    orphan = store.create_run("pre-train", params={}, pid=gone)
    ours = store.create_run("pre-train", params={}, pid=os.getpid())
    unknown = store.create_run("pre-train", params={})  # no owner recorded: left alone
    assert store.mark_interrupted(stale_after_s=30.0) == [orphan]
    run = store.get_run(orphan)
    assert run["status"] == "interrupted" and "never started" in run["error"] and str(gone) in run["error"]
    assert [store.status(r) for r in (ours, unknown)] == ["queued", "queued"]
