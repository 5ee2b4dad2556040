"""The window's course-model build: one family at a time on the long-run lane, followed, cancellable.

``start(families)`` plans the build (families already built at this version are skipped, so a build that
stopped resumes), checks the disk for all of it, and submits the first family's run; each next family is
submitted only when the one before has finished, so a Cancel stops the run that is training and the families
that never started leave no run behind. The state (``lm_workbench.pretrain.course_build.CourseBuildState``) is the
process's current build, which ``course:<family>`` resolution, the lecture presets and the views read ("building,
2 of 5 done"). Each finished model is added to the recent models.

Signals: ``changed`` (anything: the dialog and the status bar redraw), ``run_started(run_id, params)`` (the
Pre-train tab follows the run's curves), ``arrived(family, folder)``, ``ended(status)``, and ``moved_on`` when a
build starts and after either of those two.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from PySide6.QtCore import QObject, Signal

from lm_workbench.pretrain.course_build import CourseBuildState, family_name, set_current_build
from lm_workbench.pretrain.course_folders import BuildPlan, plan_build
from lm_workbench.ui.run_tracking.run_follower import RunFollower, RunProgress, format_eta

CANCEL_GRACE_S = 20.0  # the run saves a checkpoint; then the lane terminates it


class CourseBuilder(QObject):
    changed = Signal()
    run_started = Signal(int, object)  # run id, the run's params (a PretrainSpec dict)
    arrived = Signal(str, str)  # family, model folder (its <family> folder)
    ended = Signal(str)  # finished | cancelled | failed
    moved_on = Signal()  # a build started, a model arrived or the build ended: what lacked a course model asks again

    def __init__(self, services: Any, register_model: Callable[[str], None], parent: QObject | None = None,
                 *, out_root: str | Path | None = None, corpus: str | Path | None = None) -> None:
        super().__init__(parent)
        self.services = services  # RunServices: the lane and the store
        self.register_model = register_model
        self.out_root = out_root  # None: this machine's course folder
        self.corpus = corpus  # None: the Python-docs corpus
        self.state: CourseBuildState | None = None
        self.plan: BuildPlan | None = None
        self.progress: RunProgress | None = None  # of the family training now
        self.history: list[tuple[str, int, str]] = []  # (family, run id, final status) of what ran, in order
        self.cancelling = False
        self._params: dict[str, Any] = {}
        self._corpus_path: Path | None = None
        self.follower = RunFollower(services, self)
        self.follower.progress.connect(self._progress)
        self.follower.ended.connect(self._run_ended)
        self.arrived.connect(lambda *_: self.moved_on.emit())
        self.ended.connect(lambda *_: self.moved_on.emit())

    # ----------------------------------------------------------------- reading
    @property
    def building(self) -> bool:
        return self.state is not None and self.state.building

    def status_text(self) -> str:
        """One line for the status bar: "Course models: model 2 of 5 (GPT-2), step 120 of 300, about 0:40 left"."""
        state = self.state
        if state is None:
            return ""
        if not state.building:
            return f"Course models {state.model_text()}"
        parts = [f"Course models: {state.model_text()}"]
        p = self.progress
        if self.cancelling:
            parts.append("cancelling")
        elif p is not None and p.step:
            parts.append(f"step {p.step} of {p.total}")
            if p.eta_s is not None:
                parts.append(f"about {format_eta(p.eta_s)} left")
        elif state.current is not None:
            parts.append("starting")
        return ", ".join(parts)

    def fraction(self) -> float:
        """How far the whole build is (the models done plus the fraction of the one training), 0-1."""
        state = self.state
        if state is None or not state.total():
            return 0.0
        now = self.progress.fraction if (self.progress is not None and state.current) else 0.0
        return min(1.0, (len(state.done) + now) / state.total())

    # ----------------------------------------------------------------- control
    def start(self, families: list[str], *, rebuild: bool = False) -> BuildPlan:
        """Build ``families`` (those already built at this version skipped unless ``rebuild``); the plan. A disk
        that will not hold them raises ``NotEnoughSpace`` before anything is recorded."""
        from lm_workbench.pretrain.for_views import python_docs_corpus
        from lm_workbench.pretrain.course_models import course_root, estimated_bytes
        from lm_workbench.runs.disk_space import check_space

        if self.building:
            raise RuntimeError("a course-model build is already running")
        root = Path(self.out_root) if self.out_root else course_root()
        plan = plan_build(families, None if self.out_root is None else root, rebuild=rebuild)
        if plan.build:
            root.mkdir(parents=True, exist_ok=True)
            self._corpus_path = Path(self.corpus) if self.corpus else python_docs_corpus(root / "corpus")
            check_space(root, estimated_bytes(list(plan.build), self._corpus_path),
                        f"training {len(plan.build)} course model(s)")
        self.plan, self.history, self.progress, self.cancelling = plan, [], None, False
        self.state = CourseBuildState(plan.build, plan.skipped)
        set_current_build(self.state)
        if plan.build:
            self._submit_next()
            self.moved_on.emit()
        else:
            self.changed.emit()
            self.ended.emit("finished")
        return plan

    def cancel(self) -> None:
        """Stop the build: the model training now saves a checkpoint and stops; the others never start."""
        state = self.state
        if state is None or not state.building or self.cancelling:
            return
        run_id = state.runs.get(state.current) if state.current else None
        if run_id is None or not self.services.has_lane:
            self._stop("cancelled")
            return
        self.cancelling = True
        self.services.lane.cancel(run_id, grace_s=CANCEL_GRACE_S)
        self.changed.emit()

    def shutdown(self) -> None:
        """The window is closing (the lane cancels the run that trains): stop quietly, leave no build current."""
        self.follower.stop()
        self.blockSignals(True)
        if self.building:
            self._stop("cancelled")
        set_current_build(None)

    # ---------------------------------------------------------------- internal
    def _submit_next(self) -> None:
        from lm_workbench.pretrain.course_runs import submit_course_model
        from lm_workbench.pretrain.course_models import course_root, course_spec

        state = self.state
        family = state.pending()[0]
        root = Path(self.out_root) if self.out_root else course_root()
        spec = course_spec(family, self._corpus_path, root)
        try:
            run_id = submit_course_model(self.services.lane, spec)
        except Exception as exc:  # noqa: BLE001 - the lane is shut down or the spec is refused: the build stops
            self._stop("failed", f"{family_name(family)} could not start: {exc}")
            return
        self._params = spec.to_dict()
        self.progress = None
        state.started(family, run_id)
        self.follower.follow(run_id, int(spec.training.get("steps") or 0))
        self.run_started.emit(run_id, self._params)
        self.changed.emit()

    def _progress(self, run_id: int, progress: RunProgress) -> None:
        if self.state is not None and run_id == self.state.runs.get(self.state.current or ""):
            self.progress = progress
            self.changed.emit()

    def _run_ended(self, run_id: int, status: str) -> None:
        state = self.state
        family = state.current if state is not None else None
        if family is None or state.runs.get(family) != run_id:
            return
        self.history.append((family, run_id, status))
        if status == "finished":
            folder = Path(self._params.get("out_dir") or "")
            self.register_model(str(folder / "model"))
            state.arrived(family, str(folder))
            self.arrived.emit(family, str(folder))
            if state.building and not self.cancelling:
                self._submit_next()
                return
            if state.building:  # cancelled just as the model finished: the rest never start
                self._stop("cancelled")
                return
            self.changed.emit()
            self.ended.emit(state.status)
            return
        error = self.progress.error if self.progress is not None else None
        self._stop("cancelled" if status == "cancelled" else "failed",
                   None if status == "cancelled" else f"{family_name(family)} {status}: {error or 'no message'}")

    def _stop(self, status: str, error: str | None = None) -> None:
        if self.state is None:
            return
        self.cancelling = False
        self.state.stop(status, error)
        self.changed.emit()
        self.ended.emit(status)
