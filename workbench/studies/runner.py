"""Running a study: its cells as a queue, one at a time, each recorded as an ordinary run of its kind.

``run_cells(study, store, out_dir, cancel_event)`` is a job generator: it yields a ``CellEvent`` before and after
each cell ("cell 3 of 12") and returns the ``StudyState``. For each cell, in order:

- *resume*: a cell the state file (``<out_dir>/study-state.json``) lists as finished, whose run is still in the
  store and whose reuse key is unchanged, is skipped (said: ``resumed``);
- *reuse*: a finished run anywhere in the store with the same reuse key (``lm_workbench.runs.reuse``) stands
  for the cell, not recomputed (said: ``reused``);
- otherwise the cell runs as its kind's long-run job (``RunKind.target(ctx, **settings)``), recorded in the store
  (``recorded_run``) with the study's cancel flag; its key goes into its provenance.

A cell that fails (a missing data file, a model this machine lacks, a bug) is marked ``failed`` with its one line
and the others go on; a cell needing a failed cell is ``skipped``. Cancel stops at the running cell (which is
recorded as cancelled) and leaves the state file for a resume. The state file is written after every cell.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generator

from lm_workbench.engine.errors import Cancelled
from lm_workbench.studies.file import Cell, Study

STATE_FILE = "study-state.json"
DONE = ("finished", "reused", "resumed")


@dataclass
class CellEvent:
    """Progress of the queue: cell ``index`` (1-based) of ``total``, its id, and what happened (``starting``,
    ``finished``, ``reused``, ``resumed``, ``failed``, ``skipped``); ``run_id`` once it has one."""

    index: int
    total: int
    cell: str
    status: str
    run_id: int | None = None
    message: str = ""


@dataclass
class StudyState:
    """Per cell: ``{status, run_id, key, error}``; written to ``<out_dir>/study-state.json``."""

    name: str
    scale: str
    cells: dict[str, dict[str, Any]] = field(default_factory=dict)
    study_run_id: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "scale": self.scale, "study_run_id": self.study_run_id, "cells": self.cells}

    def save(self, out_dir: Path) -> Path:
        out_dir.mkdir(parents=True, exist_ok=True)
        path = out_dir / STATE_FILE
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.to_json(), indent=1, default=str), encoding="utf-8")
        os.replace(tmp, path)
        return path

    def done(self) -> int:
        return sum(1 for c in self.cells.values() if c.get("status") in DONE)


def load_state(study: Study, out_dir: Path) -> StudyState:
    """The state file of an earlier run of this study in ``out_dir`` (a fresh state when there is none or it is
    another study's)."""
    path = Path(out_dir) / STATE_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return StudyState(study.name, study.scale)
    if data.get("name") != study.name or data.get("scale") != study.scale:
        return StudyState(study.name, study.scale)
    return StudyState(study.name, study.scale, dict(data.get("cells") or {}), data.get("study_run_id"))


def _exists_finished(store: Any, run_id: Any) -> bool:
    try:
        return store.status(int(run_id)) == "finished"
    except (KeyError, TypeError, ValueError):
        return False


def _queue_cell(store: Any, cell: Cell, study: Study) -> int:
    """A queued run of the cell's kind with its settings; its id."""
    from lm_workbench.runs.kinds import run_kind
    from lm_workbench.runs.run_context import create_queued_run

    kind = run_kind(cell.kind)
    if kind is None:
        raise RuntimeError(f"unknown run kind {cell.kind!r}")
    return create_queued_run(store, cell.kind, name=f"{study.name}: {cell.id}", model=_model_column(cell),
                             method=cell.kind, params=cell.settings, cli_command=kind.cli_command(cell.settings),
                             pid=os.getpid())


def _execute_cell(store: Any, run_id: int, cell: Cell, cancel_event: Any) -> None:
    """Run the queued cell as its kind's long-run job, recorded (its errors pass through, recorded)."""
    from lm_workbench.runs.kinds import run_kind
    from lm_workbench.runs.run_context import recorded_run, resolve_target

    target = run_kind(cell.kind).target
    with recorded_run(store, run_id, cancel_event, cancelled_note="cancelled (study)") as ctx:
        resolve_target(target)(ctx, **cell.settings)


def _model_column(cell: Cell) -> str | None:
    model = cell.settings.get("model")
    return str(model) if model else None


def run_cells(study: Study, store: Any, out_dir: Path, cancel_event: Any, *, study_run_id: int | None = None
              ) -> Generator[CellEvent, None, StudyState]:
    """Run the study's cells (see the module docstring); returns the state (also on disk)."""
    from lm_workbench.runs.run_context import failure_note
    from lm_workbench.runs.reuse import find_reusable, mark_key, reuse_key

    out_dir = Path(out_dir)
    state = load_state(study, out_dir)
    state.study_run_id = study_run_id or state.study_run_id
    total = len(study.cells)
    for entry in state.cells.values():  # a cell that was running when the study was killed runs again
        if entry.get("status") not in DONE:
            entry["status"] = "pending"
    for cell in study.cells:
        state.cells.setdefault(cell.id, {"status": "pending", "run_id": None})
    state.save(out_dir)
    for index, cell in enumerate(study.cells, start=1):
        if cancel_event.is_set():
            raise Cancelled()
        entry = state.cells[cell.id]
        failed_needs = [n for n in cell.needs if _group_failed(state, study, n)]
        if failed_needs:
            entry.update(status="skipped", error=f"needs cell {failed_needs[0]}, which did not finish")
            state.save(out_dir)
            yield CellEvent(index, total, cell.id, "skipped", None, entry["error"])
            continue
        key = reuse_key(cell.kind, cell.settings)
        if entry.get("status") in DONE and entry.get("key") == key and _exists_finished(store, entry.get("run_id")):
            entry["status"] = "resumed"
            state.save(out_dir)
            yield CellEvent(index, total, cell.id, "resumed", entry["run_id"],
                            f"cell {index} of {total}: {cell.id} already finished (run #{entry['run_id']})")
            continue
        found = find_reusable(store, cell.kind, key)
        if found is not None:
            entry.update(status="reused", run_id=found["id"], key=key, error=None)
            state.save(out_dir)
            yield CellEvent(index, total, cell.id, "reused", found["id"],
                            f"cell {index} of {total}: {cell.id} reuses run #{found['id']} (same kind, settings, "
                            "model, data and versions)")
            continue
        entry.update(status="running", run_id=None, key=key, error=None, started=time.time())
        state.save(out_dir)
        yield CellEvent(index, total, cell.id, "starting", None, f"cell {index} of {total}: {cell.id} ({cell.kind})")
        run_id = _queue_cell(store, cell, study)
        entry["run_id"] = run_id
        state.save(out_dir)
        yield CellEvent(index, total, cell.id, "running", run_id, f"cell {index} of {total}: {cell.id} is run #{run_id}")
        try:
            _execute_cell(store, run_id, cell, cancel_event)
        except (Cancelled, KeyboardInterrupt):
            entry.update(status="cancelled")
            state.save(out_dir)
            raise
        except Exception as exc:  # noqa: BLE001 - a failed cell is marked; the others go on
            entry.update(status="failed", error=failure_note(exc))
            state.save(out_dir)
            yield CellEvent(index, total, cell.id, "failed", entry["run_id"],
                            f"cell {index} of {total}: {cell.id} failed: {entry['error']}")
            continue
        mark_key(store, run_id, key)
        entry.update(status="finished", run_id=run_id, wall_s=time.time() - entry.pop("started", time.time()))
        state.save(out_dir)
        yield CellEvent(index, total, cell.id, "finished", run_id, f"cell {index} of {total}: {cell.id} finished "
                                                                   f"(run #{run_id})")
    return state


def _group_failed(state: StudyState, study: Study, group: str) -> bool:
    ids = [c.id for c in study.cells if c.group == group]
    return any(state.cells.get(i, {}).get("status") not in DONE for i in ids)
