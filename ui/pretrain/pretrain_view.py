"""The "Pre-train" tab: the form on the left; live curves, progress, Cancel and results on the right.

Start hands the form's ``PretrainSpec`` to the window's long-run lane (a
child process does the work, so an out-of-memory error or a crash never
takes the window down). A ``RunFollower`` polls the run store and feeds the
live plot and the progress bar; Cancel asks the lane to stop the run (the
job saves a checkpoint; after a grace period the lane terminates it). When
the run has finished, "Open in views" loads its model in the main window.
"Course models…" opens the window's Course models dialog (choose the families, see the estimate, Start); the
tab follows each course model's run while the build goes on, and Cancel here cancels the build.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QLabel, QProgressBar, QWidget

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.ui import theme
from lm_workbench.ui.run_tracking.run_services import RunServices
from lm_workbench.ui.pretrain import course
from lm_workbench.ui.pretrain.live_plot import LivePlot
from lm_workbench.ui.run_tracking.run_follower import RunFollower, RunProgress, describe_progress, format_eta
from lm_workbench.ui.pretrain.pretrain_form import TrainingForm
from lm_workbench.ui.widgets.message_bar import MessageBar
from lm_workbench.ui.view_kit.view_context import ViewContext
from lm_workbench.ui.widgets.fold import ColumnScroll, FlowLayout, FoldSplitter
from lm_workbench.pretrain.runs import submit_pretrain
from lm_workbench.pretrain.speed_text import describe_speed
from lm_workbench.pretrain.state import PretrainRunState
from lm_workbench.ui.widgets.boxes import column, row
from lm_workbench.ui.widgets.controls import button, label

CANCEL_GRACE_S = 20.0  # a cooperative stop saves a checkpoint; then the lane terminates the process
STATUS_TEXT = {
    "queued": "Waiting for the run before it to end…",
    "running": "Running",
    "finished": "Finished",
    "failed": "Failed",
    "cancelled": "Cancelled",
    "interrupted": "Interrupted",
}


def run_summary(services: RunServices, run_id: int) -> dict[str, Any]:
    """The finished run's ``summary.json`` (its "summary" artifact), or {} when there is none to read."""
    import json

    for artifact in services.store.artifacts(run_id):
        if artifact.get("kind") == "summary" and artifact.get("path"):
            try:
                return json.loads(Path(artifact["path"]).read_text(encoding="utf-8"))
            except (OSError, ValueError):
                return {}
    return {}


def model_folder(services: RunServices, run_id: int, params: dict[str, Any]) -> Path | None:
    """The finished model's folder: the run's "model" artifact, else ``out_dir/model``."""
    for artifact in services.store.artifacts(run_id):
        if artifact.get("kind") == "model" and artifact.get("path"):
            return Path(artifact["path"])
    out = params.get("out_dir")
    return Path(out) / "model" if out else None


class TrainingView(QWidget):
    """Pre-train a model from scratch and watch it learn."""

    run_submitted = Signal(int)  # the runs browser refreshes

    def __init__(self, ctx: ViewContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.services = ctx.run_services
        self.open_model = ctx.open_model
        self.course_models = ctx.course_models  # the window's CoursePart (None: a view built on its own)
        self.state = PretrainRunState()

        self.form = TrainingForm()
        self.form.ready_changed.connect(lambda ready: self._update_buttons())
        self.message_bar = MessageBar()
        self.title_label = label("No run yet: fill in the form and press Start.", name="sectionTitle")
        self.status_label = label(name="summary", wrap=True)
        self.speed_label = label(name="summary", wrap=True,  # after a run: tokens/s and the speed levers that ran
                                 tip="The run's training speed and which speed levers it used (torch.compile, the "
                                     "chunked LM loss, the sparse MLM head, bf16; see the Training settings)")
        self.plot = LivePlot()
        self.progress_bar = QProgressBar()
        self.progress_bar.setRange(0, 1000)
        self.progress_bar.setTextVisible(False)
        theme.bind(self, lambda w, m: w.progress_bar.setMaximumHeight(m.progress_bar_h))
        self.eta_label = QLabel("")
        theme.bind(self, lambda w, m: w.eta_label.setMinimumWidth(m.eta_label_w))
        self.start_button = button("Start", tip="Pre-train with these settings in a separate process",
                                   clicked=self.start_run)
        self.cancel_button = button("Cancel", tip="Stop the run: it saves a checkpoint first (it is terminated if it "
                                                  f"does not stop within {CANCEL_GRACE_S:.0f} s)",
                                    clicked=self.cancel_run)
        self.open_button = button("Open in views", tip="Load the finished model in the main window",
                                  clicked=self.open_in_views)
        self.course_button = button("Course models…", tip=course.COURSE_TOOLTIP, clicked=self.start_course_models)
        if self.course_models is not None:
            builder = self.course_models.builder
            builder.run_started.connect(self._course_run_started)
            builder.ended.connect(lambda _status: self.message_bar.clear("course"))  # what ran is in the dialog

        self.follower = RunFollower(self.services, self)
        self.follower.rows.connect(self._rows)
        self.follower.progress.connect(self._progress)
        self.follower.ended.connect(self._ended)
        self._build_layout()
        self._update_buttons()

    def _build_layout(self) -> None:
        scroll = ColumnScroll()  # as wide as the form needs: it scrolls up and down, not sideways
        scroll.setWidget(self.form)
        theme.bind(scroll, lambda w, m: w.setMinimumWidth(m.form_column_w))
        buttons = FlowLayout()  # wraps to the width: the form and the curves stay side by side longer
        for b in (self.start_button, self.cancel_button, self.open_button, self.course_button):
            buttons.addWidget(b)
        right = QWidget()
        column(right, self.message_bar, self.title_label, self.status_label, self.speed_label, (self.plot, 1),
               row((self.progress_bar, 1), self.eta_label), buttons, margins="side_column_margins")
        splitter = FoldSplitter()  # the form above the curves where both do not fit side by side
        splitter.addWidget(scroll)
        splitter.addWidget(right)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([420, 800])
        column(self, splitter, margins="panel_margins", spacing=None)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802
        self.form.start()  # finds the objectives the first time the tab shows
        super().showEvent(event)

    # ----------------------------------------------------------------- API
    # the state's, by the names the window and tests read
    run_id = property(lambda self: self.state.run_id)
    run_params = property(lambda self: self.state.run_params)
    last_progress = property(lambda self: self.state.last_progress)
    course_run = property(lambda self: self.state.course_run)
    status = property(lambda self: self.state.status)
    active = property(lambda self: self.state.active)

    def start_run(self) -> int | None:
        """Submit the form's run; its id, or None (with the reason shown) when the form is incomplete."""
        try:
            spec = self.form.spec()
            run_id = submit_pretrain(self.services.lane, spec)
        except WorkbenchError as exc:
            self.message_bar.show_error(str(exc), source="start")
            return None
        self.message_bar.clear()
        self.follow(run_id, spec.to_dict())
        self.run_submitted.emit(run_id)
        return run_id

    def follow(self, run_id: int, params: dict[str, Any]) -> None:
        """Show ``run_id`` (a pre-training run) live in the plot and the progress bar."""
        self.state.follow(run_id, params)
        self.plot.start(run_id)
        self.title_label.setText(self.state.title(run_id, params))
        self.status_label.setText("Starting a process: training a tokenizer and packing the corpus come first…")
        self.speed_label.setText("")
        self.progress_bar.setRange(0, 0)
        self.eta_label.setText("")
        steps = int((params.get("training") or {}).get("steps") or course.default_steps())
        self.follower.follow(run_id, steps)
        self._update_buttons()

    def cancel_run(self) -> None:
        if self.run_id is None or not self.services.has_lane:
            return
        if self.run_id == self.course_run and self.course_models is not None:
            self.course_models.builder.cancel()  # the model training now stops; the rest never start
        else:
            self.services.lane.cancel(self.run_id, grace_s=CANCEL_GRACE_S)
        self.status_label.setText("Cancelling: the run saves a checkpoint and stops…")
        self.state.cancelling = True
        self._update_buttons()

    def open_in_views(self) -> None:
        folder = self.finished_model()
        if folder is None:
            self.message_bar.show_error("This run has no finished model to open.", source="open")
            return
        self.open_model(str(folder))

    def finished_model(self) -> Path | None:
        if self.run_id is None or self.status != "finished":
            return None
        folder = model_folder(self.services, self.run_id, self.run_params)
        return folder if folder is not None and folder.is_dir() else None

    def start_course_models(self) -> Any:
        """Open the Course models dialog (the window's); None for a tab built without a window."""
        if self.course_models is None:
            self.message_bar.show_error("Course models are built from the window's Pre-train tab.", source="course")
            return None
        return self.course_models.open_dialog()

    def _course_run_started(self, run_id: int, params: dict[str, Any]) -> None:
        """The course build started a model: follow it here unless a run of the user's own is being followed."""
        if not self.state.follows_course_build():
            return
        self.state.course_run = run_id
        self.message_bar.show_info(course.COURSE_NOTE, source="course")
        self.follow(run_id, params)
        self.run_submitted.emit(run_id)  # the runs browser lists it

    def shutdown(self) -> None:
        """The window is closing: stop polling and the form's worker."""
        self.follower.stop()
        self.form.shutdown()

    # -------------------------------------------------------------- updates
    def _rows(self, run_id: int, rows: list) -> None:
        if run_id == self.run_id:
            self.plot.add_rows(rows)

    def _progress(self, run_id: int, progress: RunProgress) -> None:
        if not self.state.report(run_id, progress):
            return
        if progress.step > 0 or progress.status not in ("queued", "running"):
            self.progress_bar.setRange(0, 1000)
            self.progress_bar.setValue(int(progress.fraction * 1000))
        parts = [STATUS_TEXT.get(progress.status, progress.status)]
        if progress.step:
            parts.append(describe_progress(replace(progress, eta_s=None)))
        if progress.tokens_per_s:
            parts.append(f"{progress.tokens_per_s:,.0f} tokens/s")
        if progress.eta_s is not None:
            parts.append(f"about {format_eta(progress.eta_s)} left")
        self.eta_label.setText(" · ".join(parts))
        if self.state.shows_training():
            self.status_label.setText("Training. The curves follow the run; Cancel keeps a checkpoint.")
        self._update_buttons()

    def _ended(self, run_id: int, status: str) -> None:
        if run_id != self.run_id:
            return
        error = self.state.last_error()
        if status == "finished":
            folder = self.finished_model()
            self.status_label.setText(f"Finished. The model is in {folder}." if folder else "Finished.")
            self.speed_label.setText(describe_speed(run_summary(self.services, run_id)))
        elif status == "cancelled":
            self.status_label.setText("Cancelled. " + (error or "The last checkpoint is in the output folder."))
        else:
            self.status_label.setText(f"{STATUS_TEXT.get(status, status)}.")
            self.message_bar.show_error(f"Run #{run_id} {status}: {error or 'no message'}", source="run")
        self._update_buttons()

    def _update_buttons(self) -> None:
        active = self.active
        self.start_button.setEnabled(self.form.ready and not active)
        self.course_button.setEnabled(self.course_models is not None)  # the dialog shows a build under way too
        self.cancel_button.setEnabled(self.state.can_cancel)
        self.open_button.setEnabled(self.status == "finished" and self.finished_model() is not None)
