"""What the window's long-run lane is running now, for the status bar, whichever view started it.

Pre-training, fine-tuning (and a bench of them), merges and the runs browser's "run again" and resume all go
through the window's ONE long-run lane; a view that follows its own run shows it in its own pane, but on any
other tab the status bar said "Ready". ``LongRunWatch`` checks the lane every second (no lane, no work: a
window that never trains starts nothing) and follows its running run with a ``RunFollower``, so the line
reads "Fine-tuning run #3 · lora · seq-cls: step 10 of 60 · about 0:42 left" with a determinate bar once the run's
loop has recorded its length. ``changed`` carries (text, fraction): text None when nothing runs, fraction
None while the length is unknown.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from lm_workbench.ui.run_tracking.run_follower import RunFollower, RunProgress, describe_progress

WATCH_MS = 1000
KIND_TITLES = {"pretrain": "Pre-training", "finetune": "Fine-tuning", "tuned-lens": "Tuned lens",
               "finetune-merge": "Merging", "scalar-mix": "Scalar mix"}


def run_title(row: dict[str, Any]) -> str:
    """"Fine-tuning run #3 · lora · seq-cls" from a run's store row."""
    kind = str(row.get("kind") or "run")
    title = KIND_TITLES.get(kind, kind[:1].upper() + kind[1:])
    name = row.get("name") or row.get("method")
    return f"{title} run #{row['id']}" + (f" · {name}" if name else "")


def describe_run(title: str, progress: RunProgress | None) -> str:
    """The status bar's line for a run: its title and where it stands."""
    if progress is None or progress.status == "queued":
        return f"{title}: waiting to start"
    where = describe_progress(progress)
    if not where:
        return f"{title}: starting (loading the model and the data)"
    return f"{title}: {where}"


class LongRunWatch(QObject):
    """Follows whatever the lane of ``services`` (a ``RunServices``) runs; see the module docstring."""

    changed = Signal(object, object)  # text or None, fraction or None

    def __init__(self, services: Any, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self.run_id: int | None = None
        self.title = ""
        self.follower = RunFollower(services, self)
        self.follower.progress.connect(self._progress)
        self.timer = QTimer(self)
        self.timer.setInterval(WATCH_MS)
        self.timer.timeout.connect(self.check)
        self.timer.start()

    def check(self) -> None:
        """Follow the lane's running run, or say that none runs."""
        if self.services.closed:
            self.stop()
            return
        running = self.services.running_run_id
        if running == self.run_id:
            return
        self.follower.stop()
        self.run_id = running
        if running is None:
            self.changed.emit(None, None)
            return
        try:
            self.title = run_title(self.services.store.get_run(running))
        except KeyError:
            self.title = f"Run #{running}"
        self.changed.emit(describe_run(self.title, None), None)
        self.follower.follow(running)

    def stop(self) -> None:
        self.timer.stop()
        self.follower.stop()

    def _progress(self, run_id: int, progress: RunProgress) -> None:
        if run_id != self.run_id:
            return
        running = progress.status in ("queued", "running")
        fraction = progress.fraction if running and progress.determinate and progress.step else None
        self.changed.emit(describe_run(self.title, progress) if running else None, fraction)
