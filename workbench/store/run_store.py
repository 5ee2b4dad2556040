"""The run store: every pre-training, fine-tuning, probing or evaluation run,
its metrics and its artifacts, in one SQLite file (through sqlite-utils).

The file is opened in WAL mode with a 10 s busy timeout and foreign keys on,
so a worker thread, the window and a child process can all write at once.
Each thread gets its own connection (sqlite connections are not shared across
threads); each write is one ``BEGIN IMMEDIATE`` transaction.

Faults of the file itself (``lm_workbench.store.salvage``): the first open in a
process checks it; a damaged one is set aside as ``runs.sqlite3.corrupt-<time>``
and the rows that still read are copied into a new one (``healed``). A file
written by a newer version (``user_version`` above ``SCHEMA_VERSION``) is opened
read-only, not migrated down: it can be browsed, and every write raises
``StoreReadOnly`` (one line). ``notice`` is the line the user should see.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterable, Iterator

from lm_workbench.store.sqlite_lib import sqlite_utils

from lm_workbench.engine.errors import MachineFault
from lm_workbench.notices import announce
import lm_workbench.store.salvage as salvage
from lm_workbench.store.migrations import FINAL_STATUSES, RUN_STATUSES, SCHEMA_VERSION, TABLE_COLUMNS, migrate

_JSON_COLUMNS = ("params", "provenance")
# A running run whose process is gone is marked interrupted once its heartbeat is this old (the
# lanes beat every 2 s). The wait keeps a run in another process namespace (a container sharing
# the store) from being taken for dead by its pid alone.
STALE_HEARTBEAT_S = 30.0

log = logging.getLogger(__name__)
_announced_read_only: set[str] = set()


class StoreReadOnly(MachineFault):
    """A write to a run store this version may only read (written by a newer version)."""


def pid_alive(pid: int | None) -> bool:
    """Whether a process with this id exists and is not a zombie."""
    if not pid or pid <= 0:
        return False
    try:
        import psutil
    except ImportError:
        psutil = None
    if psutil is not None:
        try:
            return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            return False
        except psutil.AccessDenied:
            return True
    if sys.platform == "win32":  # os.kill(pid, 0) would terminate it on Windows
        import ctypes

        handle = ctypes.windll.kernel32.OpenProcess(0x1000, False, pid)  # QUERY_LIMITED
        if not handle:
            return False
        code = ctypes.c_ulong()
        ctypes.windll.kernel32.GetExitCodeProcess(handle, ctypes.byref(code))
        ctypes.windll.kernel32.CloseHandle(handle)
        return code.value == 259  # STILL_ACTIVE
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _encode(value: Any) -> str | None:
    return None if value is None else json.dumps(value, default=str, sort_keys=True)


def _decode_row(row: dict[str, Any]) -> dict[str, Any]:
    for col in _JSON_COLUMNS:
        if isinstance(row.get(col), str):
            try:
                row[col] = json.loads(row[col])
            except ValueError:
                pass  # keep the raw text rather than lose it
    return row


class RunStore:
    """A handle on the SQLite run store at ``path``; safe to use from many threads."""

    def __init__(self, path: str | Path, *, busy_timeout_s: float = 10.0, check: bool = True) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.busy_timeout_s = busy_timeout_s
        self._local = threading.local()
        self._lock = threading.Lock()
        self._conns: list[tuple[threading.Thread, sqlite3.Connection]] = []
        self._closed = False
        self.read_only = False
        self.file_version = 0
        self.healed: salvage.Healed | None = None
        self.notice: str | None = None
        found = self._set_aside_if_damaged() if check else None
        self.file_version = self._file_version()
        if self.file_version > SCHEMA_VERSION:
            self.read_only = True
            self.notice = (f"The run store {self.path} was written by a newer LM Workbench (schema "
                           f"{self.file_version}; this one knows {SCHEMA_VERSION}): it is open read-only, so runs "
                           "can be browsed but not recorded. Update LM Workbench to record runs.")
            key = str(self.path.resolve())
            if key not in _announced_read_only:
                _announced_read_only.add(key)
                announce(self.notice)
            return
        migrate(self._db())
        if found is not None:
            self._copy_salvage(*found)

    # -- faults of the file ------------------------------------------------

    def _set_aside_if_damaged(self) -> tuple[str, Path, salvage.Salvage] | None:
        """Check the file once per process; a damaged one is moved aside and read for what survives."""
        damage = salvage.check_once(self.path)
        if damage is None or salvage.damage_of(self.path) is None:  # re-checked: another process may have healed it
            return None
        aside = salvage.set_aside(self.path)
        log.info("run store %s is damaged (%s); moved to %s", self.path, damage, aside)
        return damage, aside, salvage.salvage(aside, TABLE_COLUMNS)

    def _copy_salvage(self, damage: str, aside: Path, found: salvage.Salvage) -> None:
        copied = salvage.copy_into(self._db().conn, found)
        salvage.mark_sound(self.path)
        self.healed = salvage.Healed(self.path, aside, damage, copied)
        self.notice = self.healed.line
        announce(self.notice)

    def _file_version(self) -> int:
        """The file's ``user_version`` (0 for a new file), read without changing it."""
        if not self.path.exists() or self.path.stat().st_size == 0:
            return 0
        conn = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True, timeout=self.busy_timeout_s)
        try:
            return int(conn.execute("PRAGMA user_version").fetchone()[0])
        finally:
            conn.close()

    def _refuse_write(self) -> None:
        raise StoreReadOnly(f"the run store {self.path} is read-only: it was written by a newer LM Workbench "
                            f"(schema {self.file_version}; this one knows {SCHEMA_VERSION}); update LM Workbench "
                            "to record runs")

    # -- connections -------------------------------------------------------

    def _db(self) -> sqlite_utils.Database:
        """This thread's database handle, opened on first use."""
        if self._closed:
            raise RuntimeError(f"run store {self.path} is closed")
        db = getattr(self._local, "db", None)
        if db is None or self._local.pid != os.getpid():
            db = self._open()
            self._local.db, self._local.pid = db, os.getpid()
        return db

    def _open(self) -> sqlite_utils.Database:
        if self.read_only:
            conn = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True,
                                   timeout=self.busy_timeout_s, check_same_thread=False)
            conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_s * 1000)}")
        else:
            conn = sqlite3.connect(str(self.path), timeout=self.busy_timeout_s,
                                   check_same_thread=False)
            conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_s * 1000)}")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA foreign_keys = ON")
        with self._lock:
            # Close the connections of threads that have ended.
            alive = []
            for thread, old in self._conns:
                if thread.is_alive():
                    alive.append((thread, old))
                else:
                    old.close()
            alive.append((threading.current_thread(), conn))
            self._conns = alive
        return sqlite_utils.Database(conn, execute_plugins=False)

    @contextmanager
    def _write(self) -> Iterator[sqlite_utils.Database]:
        """One write transaction, taking the write lock up front (BEGIN IMMEDIATE).

        A sqlite error carries ``store_path`` (this file) for the one line the user sees
        (``lm_workbench.faults``); a read-only store refuses with ``StoreReadOnly``.
        """
        if self.read_only:
            self._refuse_write()
        db = self._db()
        try:
            db.conn.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                if db.conn.in_transaction:
                    db.conn.execute("ROLLBACK")
                raise
            else:
                db.conn.execute("COMMIT")
        except sqlite3.Error as exc:
            exc.store_path = self.path  # type: ignore[attr-defined]
            raise

    @property
    def journal_mode(self) -> str:
        """The file's journal mode ("wal" once opened)."""
        return str(self._db().execute("PRAGMA journal_mode").fetchone()[0])

    def close(self) -> None:
        """Close every connection this store opened; the object is unusable after."""
        with self._lock:
            self._closed = True
            for _, conn in self._conns:
                conn.close()
            self._conns = []
        self._local = threading.local()

    def __enter__(self) -> "RunStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- runs --------------------------------------------------------------

    def create_run(self, kind: str, *, name: str | None = None, model: str | None = None,
                   method: str | None = None, params: dict[str, Any] | None = None,
                   provenance: dict[str, Any] | None = None, cli_command: str | None = None,
                   status: str = "queued", pid: int | None = None) -> int:
        """Record a new run and return its id.

        ``pid``: the process that owns it for now (for a queued run, the
        session whose lane will start it; ``start_run`` replaces it with the
        child's), so a queued run whose session died can be told apart.
        """
        if status not in RUN_STATUSES:
            raise ValueError(f"unknown run status {status!r}")
        record = {
            "kind": kind, "name": name, "status": status, "model": model, "method": method,
            "created_at": time.time(), "params": _encode(params or {}),
            "provenance": _encode(provenance), "cli_command": cli_command, "pid": pid,
        }
        with self._write() as db:
            return int(db.table("runs").insert(record).last_pk)

    def _update_run(self, run_id: int, updates: dict[str, Any],
                    if_status: Iterable[str] | None = None) -> bool:
        sets = ", ".join(f"[{k}] = ?" for k in updates)
        sql = f"UPDATE runs SET {sets} WHERE id = ?"
        args: list[Any] = [*updates.values(), run_id]
        if if_status is not None:
            allowed = list(if_status)
            sql += f" AND status IN ({', '.join('?' * len(allowed))})"
            args += allowed
        with self._write() as db:
            changed = db.conn.execute(sql, args).rowcount
            if not changed and db.conn.execute(
                    "SELECT 1 FROM runs WHERE id = ?", [run_id]).fetchone() is None:
                raise KeyError(f"no run {run_id}")
        return bool(changed)

    def set_provenance(self, run_id: int, provenance: dict[str, Any]) -> None:
        """Record what produced the run (``lm_workbench.runs.provenance.collect_provenance``)."""
        self._update_run(run_id, {"provenance": _encode(provenance)})

    def start_run(self, run_id: int, pid: int | None = None) -> None:
        """Mark a run as running now, in process ``pid``."""
        now = time.time()
        self._update_run(run_id, {"status": "running", "started_at": now,
                                  "heartbeat_at": now, "pid": pid})

    def set_total_steps(self, run_id: int, total: int) -> None:
        """Record how many optimizer steps the run takes in all (its loop knows once it starts)."""
        self._update_run(run_id, {"total_steps": int(total)})

    def heartbeat(self, run_id: int) -> None:
        """Record that the run's process is still alive."""
        self._update_run(run_id, {"heartbeat_at": time.time()})

    def finish_run(self, run_id: int, status: str = "finished", error: str | None = None,
                   *, if_status: Iterable[str] | None = None) -> bool:
        """Give a run its final status; False when ``if_status`` did not match."""
        if status not in FINAL_STATUSES:
            raise ValueError(f"{status!r} is not a final status ({', '.join(FINAL_STATUSES)})")
        return self._update_run(run_id, {"status": status, "finished_at": time.time(),
                                         "error": error}, if_status=if_status)

    def get_run(self, run_id: int) -> dict[str, Any]:
        """The run's row, with params and provenance decoded; KeyError if absent."""
        rows = list(self._db().query("SELECT * FROM runs WHERE id = ?", [run_id]))
        if not rows:
            raise KeyError(f"no run {run_id}")
        return _decode_row(rows[0])

    def status(self, run_id: int) -> str:
        """The run's status; KeyError if absent."""
        row = self._db().execute("SELECT status FROM runs WHERE id = ?", [run_id]).fetchone()
        if row is None:
            raise KeyError(f"no run {run_id}")
        return str(row[0])

    def list_runs(self, kind: str | None = None, status: str | None = None, *,
                  recover: bool = True) -> list[dict[str, Any]]:
        """All runs, newest first, optionally of one kind and/or status.

        With ``recover`` (the default) runs whose process is gone are first
        marked interrupted (``mark_interrupted``, as the window does at start),
        so no listing shows a dead run as running; a live run is never marked.
        ``recover=False`` lists the rows as they are stored.
        """
        if recover:
            try:
                self.mark_interrupted()
            except sqlite3.OperationalError as exc:  # a read-only or locked store still lists
                log.warning("could not mark interrupted runs in %s: %s", self.path, exc)
        where, args = [], []
        if kind is not None:
            where.append("kind = ?")
            args.append(kind)
        if status is not None:
            where.append("status = ?")
            args.append(status)
        sql = "SELECT * FROM runs"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY created_at DESC, id DESC"
        return [_decode_row(r) for r in self._db().query(sql, args)]

    def delete_run(self, run_id: int) -> bool:
        """Delete a run with its metrics and artifact rows (not the files); False if absent."""
        with self._write() as db:
            db.conn.execute("DELETE FROM metrics WHERE run_id = ?", [run_id])
            db.conn.execute("DELETE FROM artifacts WHERE run_id = ?", [run_id])
            return db.conn.execute("DELETE FROM runs WHERE id = ?", [run_id]).rowcount > 0

    def mark_interrupted(self, stale_after_s: float = STALE_HEARTBEAT_S) -> list[int]:
        """Mark ``interrupted`` every running run whose process is gone, and
        every queued run whose session is gone.

        A running run qualifies when its last heartbeat (or start) is older
        than ``stale_after_s`` and its pid is not alive. A queued run
        qualifies when the session that queued it (its recorded pid) is not
        alive: it never started, and no lane will start it. Returns the ids marked
        (none in a read-only store).
        """
        if self.read_only:
            return []
        now = time.time()
        marked = []
        queued = self._db().execute(
            "SELECT id, pid FROM runs WHERE status = 'queued' AND pid IS NOT NULL").fetchall()
        for run_id, pid in queued:
            if not pid_alive(pid) and self.finish_run(
                    run_id, "interrupted", if_status=("queued",),
                    error=f"never started: the session that queued it (process {pid}) ended"):
                marked.append(int(run_id))
        rows = self._db().execute(
            "SELECT id, pid, COALESCE(heartbeat_at, started_at, created_at) "
            "FROM runs WHERE status = 'running'").fetchall()
        for run_id, pid, last in rows:
            if last is not None and now - last <= stale_after_s:
                continue
            if pid_alive(pid):
                continue
            ago = "never" if last is None else f"{now - last:.0f} s ago"
            if self.finish_run(run_id, "interrupted", if_status=("running",),
                               error=f"process {pid} vanished; last heartbeat {ago}"):
                marked.append(int(run_id))
        return marked

    # -- metrics and artifacts ---------------------------------------------

    def log_metrics(self, run_id: int, step: int, values: dict[str, float],
                    time: float | None = None) -> None:
        """Record several named values at one step, in one transaction."""
        if not values:
            return
        stamp = _now() if time is None else time
        rows = [{"run_id": run_id, "step": int(step), "name": str(name),
                 "value": float(value), "time": stamp} for name, value in values.items()]
        with self._write() as db:
            db.table("metrics").insert_all(rows)

    def metrics(self, run_id: int, name: str | None = None) -> list[dict[str, Any]]:
        """The run's metric rows, ordered by name then step (one name if given)."""
        if name is None:
            sql, args = "SELECT * FROM metrics WHERE run_id = ? ORDER BY name, step, rowid", [run_id]
        else:
            sql = "SELECT * FROM metrics WHERE run_id = ? AND name = ? ORDER BY step, rowid"
            args = [run_id, name]
        return list(self._db().query(sql, args))

    def metric_names(self, run_id: int) -> list[str]:
        """The distinct metric names a run has logged, sorted."""
        rows = self._db().execute(
            "SELECT DISTINCT name FROM metrics WHERE run_id = ? ORDER BY name", [run_id])
        return [r[0] for r in rows]

    def add_artifact(self, run_id: int, name: str, kind: str, path: str | Path,
                     sha256: str | None = None) -> int:
        """Record a file a run produced (checkpoint, export...); return its id."""
        record = {"run_id": run_id, "name": name, "kind": kind, "path": str(path),
                  "sha256": sha256, "created_at": _now()}
        with self._write() as db:
            return int(db.table("artifacts").insert(record).last_pk)

    def artifacts(self, run_id: int) -> list[dict[str, Any]]:
        """The run's artifact rows, oldest first."""
        return list(self._db().query(
            "SELECT * FROM artifacts WHERE run_id = ? ORDER BY id", [run_id]))


def _now() -> float:
    return time.time()
