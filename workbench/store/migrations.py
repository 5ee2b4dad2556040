"""Schema migrations of the run store, versioned by ``PRAGMA user_version``.

``MIGRATIONS`` is an ordered list: migration ``n`` (1-based) is
``MIGRATIONS[n - 1]`` and takes the database from version ``n - 1`` to ``n``.
To change the schema, append a function; never edit or reorder old ones.
``migrate(db)`` applies the missing ones, each in its own ``BEGIN IMMEDIATE``
transaction together with the version bump, so two processes opening the same
file at once cannot both apply a migration.
"""

from __future__ import annotations

from typing import Callable

from lm_workbench.store.sqlite_lib import ForeignKey, sqlite_utils

Migration = Callable[[sqlite_utils.Database], None]

RUN_STATUSES = ("queued", "running", "finished", "failed", "cancelled", "interrupted")
FINAL_STATUSES = ("finished", "failed", "cancelled", "interrupted")

_RUNS_COLUMNS: dict[str, type] = {
    "id": int,
    "kind": str,
    "name": str,
    "status": str,
    "model": str,
    "method": str,
    "created_at": float,
    "started_at": float,
    "finished_at": float,
    "heartbeat_at": float,
    "pid": int,
    "params": str,
    "provenance": str,
    "cli_command": str,
    "error": str,
}
_METRICS_COLUMNS: dict[str, type] = {
    "run_id": int, "step": int, "name": str, "value": float, "time": float,
}
_ARTIFACTS_COLUMNS: dict[str, type] = {
    "id": int, "run_id": int, "name": str, "kind": str, "path": str,
    "sha256": str, "created_at": float,
}


def _ensure_table(db: sqlite_utils.Database, name: str, columns: dict[str, type],
                  **create_kwargs) -> None:
    """Create the table, or add the columns an older layout of it lacks."""
    table = db.table(name)
    if not table.exists():
        table.create(columns, **create_kwargs)
        return
    have = set(table.columns_dict)
    for col, col_type in columns.items():
        if col not in have:
            table.add_column(col, col_type)


def _cascade(table: str) -> ForeignKey:
    """``<table>.run_id`` references ``runs.id``; deleting the run deletes the rows."""
    return ForeignKey(table, "run_id", "runs", "id", on_delete="CASCADE")


def _m001_initial(db: sqlite_utils.Database) -> None:
    """Tables ``runs``, ``metrics`` and ``artifacts``.

    Also upgrades a pre-versioning file (user_version 0) whose tables exist
    with fewer columns, by adding the missing ones.
    """
    _ensure_table(db, "runs", _RUNS_COLUMNS, pk="id",
                  not_null=["kind", "status", "created_at"],
                  defaults={"status": "queued"})
    _ensure_table(db, "metrics", _METRICS_COLUMNS,
                  foreign_keys=[_cascade("metrics")],
                  not_null=["run_id", "name"])
    _ensure_table(db, "artifacts", _ARTIFACTS_COLUMNS, pk="id",
                  foreign_keys=[_cascade("artifacts")],
                  not_null=["run_id", "name"])
    db.table("metrics").create_index(["run_id", "name", "step"],
                                     index_name="idx_metrics_run_name_step", if_not_exists=True)
    db.table("artifacts").create_index(["run_id"], index_name="idx_artifacts_run",
                                       if_not_exists=True)
    db.table("runs").create_index(["status"], index_name="idx_runs_status", if_not_exists=True)


_RUNS_COLUMNS_2: dict[str, type] = {
    "total_steps": int,  # the optimizer steps a training run takes in all, once its loop knows (else NULL)
}


def _m002_total_steps(db: sqlite_utils.Database) -> None:
    """``runs.total_steps``: a long run's planned length, written when its loop starts, so a window following
    it can say "step k of n" and estimate the time left (a fine-tuning run's length depends on its data)."""
    _ensure_table(db, "runs", {**_RUNS_COLUMNS, **_RUNS_COLUMNS_2})


TABLE_COLUMNS: dict[str, list[str]] = {  # what a damaged store's rows are copied by (lm_workbench.store.salvage)
    "runs": [*_RUNS_COLUMNS, *_RUNS_COLUMNS_2], "metrics": list(_METRICS_COLUMNS),
    "artifacts": list(_ARTIFACTS_COLUMNS),
}

MIGRATIONS: list[Migration] = [
    _m001_initial,
    _m002_total_steps,
]

SCHEMA_VERSION = len(MIGRATIONS)


def schema_version(db: sqlite_utils.Database) -> int:
    """The file's ``PRAGMA user_version``."""
    return int(db.execute("PRAGMA user_version").fetchone()[0])


def migrate(db: sqlite_utils.Database) -> list[int]:
    """Apply every migration the file lacks; return the versions applied.

    Each migration runs in a ``BEGIN IMMEDIATE`` transaction that also sets
    ``user_version``; the version is re-read inside it, so concurrent callers
    are safe, and a migration that raises leaves the file at the version
    before it. A file newer than this code raises ``RuntimeError``.
    """
    latest = len(MIGRATIONS)
    applied: list[int] = []
    current = schema_version(db)
    if current > latest:
        raise RuntimeError(
            f"run store schema version {current} is newer than this program "
            f"(knows {latest}); update LM Workbench")
    conn = db.conn
    while current < latest:
        conn.execute("BEGIN IMMEDIATE")
        try:
            current = schema_version(db)
            if current >= latest:
                conn.execute("COMMIT")
                break
            MIGRATIONS[current](db)
            conn.execute(f"PRAGMA user_version = {current + 1}")
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        current += 1
        applied.append(current)
    return applied
