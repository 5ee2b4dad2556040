"""What the Pre-train tab shows, without Qt: the run it follows (the user's or the course build's), its last
progress report, and whether a cancel is under way.

``PretrainRunState.follow(run_id, params)`` starts following a run (its progress forgotten, no cancel under
way); ``report(run_id, progress)`` keeps a report of that run (False: another run's, ignored). Derived:
``status`` (the last report's, or None), ``active`` (queued or running, or submitted and not reported yet),
``can_cancel``, ``title(params)`` ("Run #3: gpt2 clm (tiny)"), ``follows_course_build(active)`` (whether a
course model's run should be followed here: nothing of the user's is being followed), ``training_line()``
(the status line while it trains). ``progress`` objects have ``status``, ``step``, ``error`` (the run
follower's ``RunProgress``).
"""

from __future__ import annotations

from typing import Any


class PretrainRunState:
    def __init__(self) -> None:
        self.run_id: int | None = None
        self.run_params: dict[str, Any] = {}
        self.last_progress: Any = None
        self.course_run: int | None = None  # the course model's run this tab follows
        self.cancelling = False

    def follow(self, run_id: int, params: dict[str, Any]) -> None:
        self.run_id, self.run_params, self.last_progress = run_id, dict(params), None
        self.cancelling = False

    def report(self, run_id: int, progress: Any) -> bool:
        if run_id != self.run_id:
            return False
        self.last_progress = progress
        return True

    # ------------------------------------------------------------- derived
    @property
    def status(self) -> str | None:
        return self.last_progress.status if self.last_progress is not None else None

    @property
    def active(self) -> bool:
        return self.status in ("queued", "running") or (self.run_id is not None and self.last_progress is None)

    @property
    def can_cancel(self) -> bool:
        return self.active and self.run_id is not None and not self.cancelling

    @staticmethod
    def title(run_id: int, params: dict[str, Any]) -> str:
        name = params.get("name") or f"{params.get('family')} {params.get('objective')} ({params.get('preset')})"
        return f"Run #{run_id}: {name}"

    def follows_course_build(self) -> bool:
        """A course model's run is followed here unless a run of the user's own is active."""
        return not (self.active and self.run_id != self.course_run)

    def shows_training(self) -> bool:
        """The "Training…" line replaces the status (not while a cancel is under way)."""
        p = self.last_progress
        return p is not None and p.status == "running" and bool(p.step) and not self.cancelling

    def last_error(self) -> str | None:
        return self.last_progress.error if self.last_progress is not None else None
