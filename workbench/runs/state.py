"""What the Runs tab shows, without Qt: the runs read from the store, their summaries (a finished run's read
once), the runs hidden while their deletion can be undone, and whether the store's notice was said.

``RunsState.update(runs, read_summaries)`` keeps ``runs`` (id -> the store's row, those pending deletion left
out) and returns each run with its summary: ``read_summaries(ids)`` is asked only for runs still going or not
read yet. ``first_active(ids)`` is a run that cannot be deleted yet; ``hide(ids)`` / ``undo()`` /
``take_deletes()`` are the deletion with its Undo; ``take_notice(notice)`` is True once per store notice.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

ACTIVE = ("queued", "running")


class RunsState:
    def __init__(self) -> None:
        self.runs: dict[int, dict[str, Any]] = {}
        self.final_summaries: dict[int, dict[str, float]] = {}
        self.pending_delete: list[int] = []
        self.notice_shown = False

    def visible(self, runs: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
        return [r for r in runs if r["id"] not in self.pending_delete]

    def take_notice(self, notice: str | None) -> bool:
        """True the first time the store has a notice (set aside and rebuilt, or read-only): said once."""
        if notice and not self.notice_shown:
            self.notice_shown = True
            return True
        return False

    def update(self, runs: list[dict[str, Any]],
               read_summaries: Callable[[list[int]], dict[int, dict[str, float]]]) -> list[tuple[dict, dict]]:
        """Keep ``runs``; each with its summary (a finished run's is read once and kept)."""
        self.runs = {r["id"]: r for r in runs}
        stale = [r["id"] for r in runs if r["id"] not in self.final_summaries or r["status"] in ACTIVE]
        fresh = read_summaries(stale) if stale else {}
        out = []
        for run in runs:
            summary = fresh.get(run["id"], self.final_summaries.get(run["id"], {}))
            if run["status"] not in ACTIVE:
                self.final_summaries[run["id"]] = summary
            out.append((run, summary))
        return out

    def first_active(self, ids: list[int]) -> int | None:
        return next((i for i in ids if self.runs[i]["status"] in ACTIVE), None)

    def hide(self, ids: list[int]) -> None:
        self.pending_delete = list(ids)

    def undo(self) -> list[int]:
        restored, self.pending_delete = self.pending_delete, []
        return restored

    def take_deletes(self) -> list[int]:
        ids, self.pending_delete = self.pending_delete, []
        return ids

    def forget(self, run_id: int) -> None:
        self.final_summaries.pop(run_id, None)
