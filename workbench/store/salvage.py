"""A run store that heals like the settings do: a damaged file is set aside, never deleted.

``check_store(path)`` opens the file read-only and runs ``PRAGMA quick_check``. A file that is not a
database (a copy cut short, a sync tool's conflict file) or fails the check is renamed to
``runs.sqlite3.corrupt-<time>`` (``lm_workbench.files.move_aside``, with its ``-wal``/``-shm`` files),
and whatever rows of ``runs``, ``metrics`` and ``artifacts`` still read without error are kept in a
``Salvage``; ``RunStore`` then creates a fresh file and copies them in (``copy_into``), keeping the run
ids. A store that is merely busy or locked is not damaged and is left alone.

Each healing is announced once as one line (``Healed.line``, through ``lm_workbench.notices``: the CLI
prints it on stderr, the window shows it at start) and logged.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lm_workbench.files import aside_name, move_aside

log = logging.getLogger(__name__)

TABLES = ("runs", "metrics", "artifacts")
DAMAGED_CODES = (11, 26)  # SQLITE_CORRUPT, SQLITE_NOTADB
MAX_PROBES = 200_000  # row reads per table while bisecting around damaged pages

_checked: set[str] = set()
_lock = threading.Lock()


@dataclass
class Salvage:
    """The rows that still read from a damaged store, per table, as dicts of their columns."""

    rows: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    lost_pages: bool = False


@dataclass
class Healed:
    """A damaged store that was set aside; what was copied into the new one."""

    path: Path
    aside: Path
    reason: str
    copied: dict[str, int] = field(default_factory=dict)

    @property
    def line(self) -> str:
        runs = self.copied.get("runs", 0)
        kept = (f"{runs} run(s) that could still be read were copied into a new one"
                if runs else "nothing could be read from it, so a new, empty one was started")
        return (f"The run store {self.path} was damaged ({self.reason}); it was moved to {self.aside} "
                f"(kept, not deleted) and {kept}.")


def is_damage(exc: BaseException) -> bool:
    """Whether a sqlite error means the file is damaged (not busy, locked or unreadable)."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF in DAMAGED_CODES
    text = str(exc)
    return "malformed" in text or "not a database" in text


def _connect_ro(path: Path) -> sqlite3.Connection:
    """Read-only; ``immutable`` (no lock, no ``-shm`` file made beside it) when it has no write-ahead log."""
    wal = path.with_name(path.name + "-wal").exists()
    mode = "mode=ro" if wal else "mode=ro&immutable=1"
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?{mode}", uri=True, timeout=10.0)
    conn.execute("PRAGMA writable_schema = ON")  # read what it can even when the page count lies
    return conn


def damage_of(path: Path) -> str | None:
    """Why the store at ``path`` is damaged, or None when it opens and passes ``PRAGMA quick_check``."""
    try:
        conn = _connect_ro(path)
    except sqlite3.DatabaseError as exc:
        if is_damage(exc):
            return " ".join(str(exc).split())
        raise
    try:
        rows = conn.execute("PRAGMA quick_check").fetchall()
    except sqlite3.DatabaseError as exc:
        if is_damage(exc):
            return " ".join(str(exc).split())
        raise
    finally:
        conn.close()
    problems = [str(r[0]) for r in rows if r and r[0] != "ok"]
    return f"integrity check: {problems[0]}" if problems else None


def _rows_between(conn: sqlite3.Connection, table: str, columns: list[str], lo: int, hi: int,
                  budget: list[int]) -> tuple[list[tuple], bool]:
    """The rows with ``lo <= rowid <= hi`` that read; bisects around damaged pages. (rows, lost any)."""
    cols = ", ".join(f"[{c}]" for c in columns)
    sql = f"SELECT {cols} FROM [{table}] WHERE rowid BETWEEN ? AND ? ORDER BY rowid"
    out: list[tuple] = []
    lost = False
    stack = [(lo, hi)]
    while stack:
        a, b = stack.pop()
        if budget[0] <= 0:
            return out, True
        budget[0] -= 1
        try:
            out.extend(conn.execute(sql, (a, b)).fetchall())
        except sqlite3.DatabaseError:
            if a == b:
                lost = True
                continue
            mid = (a + b) // 2
            stack += [(mid + 1, b), (a, mid)]
    return out, lost


def read_table(conn: sqlite3.Connection, table: str, known: list[str]) -> tuple[list[dict[str, Any]], bool]:
    """Every row of ``table`` that reads without error (only the ``known`` columns it has)."""
    try:
        have = [row[1] for row in conn.execute(f"PRAGMA table_info([{table}])")]
    except sqlite3.DatabaseError:
        return [], True
    columns = [c for c in known if c in have]
    if not columns:
        return [], False
    cols = ", ".join(f"[{c}]" for c in columns)
    try:
        return [dict(zip(columns, r)) for r in conn.execute(f"SELECT {cols} FROM [{table}]").fetchall()], False
    except sqlite3.DatabaseError:
        pass
    try:
        top = conn.execute(f"SELECT max(rowid) FROM [{table}]").fetchone()[0]
    except sqlite3.DatabaseError:
        top = None
    rows, lost = _rows_between(conn, table, columns, 1, int(top) if top else 1 << 20, [MAX_PROBES])
    return [dict(zip(columns, r)) for r in rows], True


def salvage(path: Path, columns: dict[str, list[str]]) -> Salvage:
    """Read what still reads from the damaged store at ``path`` (left unchanged)."""
    found = Salvage()
    try:
        conn = _connect_ro(path)
    except sqlite3.Error:
        found.lost_pages = True
        return found
    try:
        for table in TABLES:
            rows, lost = read_table(conn, table, columns[table])
            found.rows[table] = rows
            found.lost_pages = found.lost_pages or lost
    except sqlite3.Error:
        found.lost_pages = True
    finally:
        conn.close()
    return found


def copy_into(conn: sqlite3.Connection, found: Salvage) -> dict[str, int]:
    """Insert the salvaged rows into a fresh store (its tables exist); metrics and artifacts only of runs
    that were kept. One transaction; returns how many rows of each table went in."""
    counts: dict[str, int] = {}
    run_ids = {row["id"] for row in found.rows.get("runs", []) if row.get("id") is not None}
    conn.execute("BEGIN IMMEDIATE")
    try:
        for table in TABLES:
            rows = [r for r in found.rows.get(table, []) if table == "runs" or r.get("run_id") in run_ids]
            if table == "runs":
                rows = [r for r in rows if r.get("id") is not None and r.get("kind") and r.get("created_at")]
            counts[table] = 0
            for row in rows:
                row = {k: v for k, v in row.items() if v is not None}
                cols = ", ".join(f"[{c}]" for c in row)
                try:
                    conn.execute(f"INSERT OR IGNORE INTO [{table}] ({cols}) VALUES ({', '.join('?' * len(row))})",
                                 list(row.values()))
                    counts[table] += 1
                except sqlite3.Error:
                    continue  # a row the new schema refuses: leave it in the set-aside file
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return counts


def set_aside(path: Path) -> Path:
    """Rename the damaged store and its ``-wal``/``-shm`` files to ``<name>.corrupt-<time>[-wal|-shm]``."""
    target = aside_name(path)
    for suffix in ("-wal", "-shm"):
        companion = path.with_name(path.name + suffix)
        if companion.exists():
            move_aside(companion, target.with_name(target.name + suffix))
    return move_aside(path, target)


def check_once(path: Path) -> str | None:
    """``damage_of(path)`` until this process has found ``path`` sound (``mark_sound``); None after."""
    with _lock:
        if str(path.resolve()) in _checked:
            return None
    if not path.exists() or path.stat().st_size == 0:
        return None
    damage = damage_of(path)
    if damage is None:
        mark_sound(path)
    return damage


def mark_sound(path: Path) -> None:
    """No need to check ``path`` again in this process (it passed, or was just made anew)."""
    with _lock:
        _checked.add(str(path.resolve()))


def forget_checks() -> None:
    """Check every store again on its next open (tests; a window that reopens the store)."""
    with _lock:
        _checked.clear()
