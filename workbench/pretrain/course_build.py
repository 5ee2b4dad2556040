"""A build of the course models under way: which families, which is building, how many are done (no Qt).

The window builds the course models one family at a time (``lm_workbench.ui.pretrain.course_builder``); this is
the state it keeps, which everything else reads: the dialog and the status bar ("model 3 of 5 (BART)"), the
views and lecture steps that need a course model still on its way ("building, 2 of 5 done"), and
``course:<family>`` resolution, which raises ``CourseModelComing`` for a family the build will make instead of
saying it is not pre-trained. One build runs per process (``current_build``).

``lm_workbench.pretrain.course_folders.plan_build`` says which of the chosen families a build makes and which it
skips because they are already built at this version (a partial build resumes). Light: imports no other course
module (they import it).

Events (``state.events.<name>.connect``): ``changed`` [] (anything), ``arrived`` [family, folder] (a model is
built and can be opened), ``ended`` [status] (finished | cancelled | failed).
"""

from __future__ import annotations

from typing import Iterable

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.observable import EventGroup

DISPLAY_NAMES = {"bert": "BERT", "gpt2": "GPT-2", "bart": "BART", "t5": "T5", "elmo": "ELMo"}


def family_name(family: str) -> str:
    """"GPT-2" for ``gpt2``."""
    return DISPLAY_NAMES.get(family, family)


class CourseModelMissing(WorkbenchError):
    """``course:<family>`` names a course model not built on this machine (the message says how to build it); the
    window asks again when a build starts or moves on."""

    def __init__(self, family: str, message: str) -> None:
        self.family = family
        super().__init__(message)


class CourseModelComing(CourseModelMissing):
    """A course model that is not here yet but that the running build makes: said as "building, k of n done";
    the asker computes again when it arrives (``CourseBuildState.events.arrived``)."""

    def __init__(self, family: str, progress: str) -> None:
        super().__init__(family, f"the course {family_name(family)} model is on its way ({progress}): this shows "
                                 "once it is built")


class CourseBuildState:
    """One build: ``families`` in the order they are built; see the module docstring."""

    def __init__(self, families: Iterable[str], skipped: Iterable[str] = ()) -> None:
        self.families = list(families)
        self.skipped = list(skipped)
        self.done: list[str] = []
        self.folders: dict[str, str] = {}
        self.runs: dict[str, int] = {}  # family -> run id, for the families that started
        self.current: str | None = None
        self.status = "building" if self.families else "finished"
        self.error: str | None = None
        self.events = EventGroup("changed", "arrived", "ended")

    # ------------------------------------------------------------------ reading
    @property
    def building(self) -> bool:
        return self.status == "building"

    def total(self) -> int:
        return len(self.families)

    def index(self) -> int:
        """k of "model k of n" (1-based): the family building now, or the next one."""
        return min(len(self.done) + 1, self.total())

    def pending(self) -> list[str]:
        """The families still to come while the build runs (the one building first); [] once it has ended."""
        return [f for f in self.families if f not in self.done] if self.building else []

    def will_build(self, family: str) -> bool:
        return family in self.pending()

    def progress_text(self) -> str:
        """"building, 2 of 5 done"."""
        return f"building, {len(self.done)} of {self.total()} done"

    def model_text(self) -> str:
        """"model 3 of 5 (BART)" while building; what happened once it has ended."""
        if self.building:
            family = self.current or (self.pending() or [""])[0]
            return f"model {self.index()} of {self.total()} ({family_name(family)})"
        built = ", ".join(family_name(f) for f in self.done) or "none"
        return f"{self.status}: {len(self.done)} of {self.total()} built ({built})"

    # ------------------------------------------------------------------ changes
    def started(self, family: str, run_id: int) -> None:
        self.current = family
        self.runs[family] = run_id
        self.events.changed.emit()

    def arrived(self, family: str, folder: str) -> None:
        """``family`` is built into ``folder``."""
        if family not in self.done:
            self.done.append(family)
        self.folders[family] = folder
        self.current = None
        if len(self.done) == self.total():
            self.status = "finished"
        self.events.arrived.emit(family, folder)
        self.events.changed.emit()
        if self.status == "finished":
            self.events.ended.emit(self.status)

    def stop(self, status: str, error: str | None = None) -> None:
        """The build ended early: ``cancelled`` or ``failed`` (``error`` says why)."""
        if not self.building:
            return
        self.status, self.error, self.current = status, error, None
        self.events.changed.emit()
        self.events.ended.emit(status)


_CURRENT: CourseBuildState | None = None


def current_build() -> CourseBuildState | None:
    """The build this process runs now, or None (none, or it has ended)."""
    return _CURRENT if _CURRENT is not None and _CURRENT.building else None


def set_current_build(state: CourseBuildState | None) -> None:
    global _CURRENT
    _CURRENT = state


def coming(family: str) -> CourseModelComing | None:
    """The error to raise for ``family`` when the running build will make it, else None."""
    build = current_build()
    if build is not None and build.will_build(family):
        return CourseModelComing(family, build.progress_text())
    return None
