"""``GuideState``: one student working through one guide (no Qt): the current page, answers and feedback.

The window's Guide tab and its page panel are views of this object. ``as_preset()`` is the guide as a lecture
preset (one step per page, each with its page's model and title as caption), which the window's lecture
machinery runs, so a page sets up its view exactly as a lecture step does. ``answer(text, expected)`` reads and
judges a try, records it in the student's ``Progress`` and returns the ``Feedback`` to show: right (with why,
from the model), wrong (with the next hint), or wrong for the third time (with the answer and why). Expected
answers are kept per (page, model) while the session lasts, so a second try is checked at once; they are never
written anywhere.

Events: ``page_changed`` [index], ``answered`` [Feedback], ``progress_changed`` [].
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any, Callable

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.guide.check import REVEAL_AFTER, hint_for, is_right, read_answer
from lm_workbench.guide.library import Guide
from lm_workbench.guide.page import Page
from lm_workbench.guide.progress import Progress
from lm_workbench.guide.questions import Expected
from lm_workbench.observable import EventGroup


@dataclass(frozen=True)
class Feedback:
    page: str
    correct: bool
    text: str  # what the panel says
    reveal: bool = False  # the answer is shown (right, or after REVEAL_AFTER wrong tries)
    hint: str = ""


class GuideState:
    def __init__(self, guide: Guide, progress: Progress, clock: Callable[[], float] = time.monotonic) -> None:
        self.events = EventGroup("page_changed", "answered", "progress_changed")
        self.guide, self.progress = guide, progress
        self.index = progress.resume_index(guide)
        self._clock = clock
        self._since = clock()
        self._expected: dict[tuple[str, str], Expected] = {}

    @property
    def page(self) -> Page:
        return self.guide.pages[self.index]

    def as_preset(self) -> Any:
        """The guide as a lecture preset: one step per page (its view, inputs, settings, model; title caption)."""
        from lm_workbench.lectures.schema import Preset

        steps = tuple(replace(p.step, caption=p.title[:200], model=p.step.model or p.model) for p in self.guide.pages)
        return Preset(name=f"guide-{self.guide.name}"[:64], title=self.guide.title[:200],
                      description=self.guide.description, model="default", steps=steps, source="")

    def _leave(self) -> None:
        now = self._clock()
        self.progress.add_time(self.guide.name, self.page.id, now - self._since)
        self._since = now

    def go(self, index: int) -> bool:
        """Make page ``index`` current (time on the page left is counted); False when there is no such page."""
        if not 0 <= index < len(self.guide.pages):
            return False
        self._leave()
        self.index = index
        self.progress.visit(self.guide.name, self.page.id)
        self.events.page_changed.emit(index)
        return True

    def close(self) -> None:
        """Count the time on the current page (the window closes, or another guide opens)."""
        self._leave()

    def changed(self) -> bool:
        """Whether the current page's file changed since the student first tried it."""
        return self.progress.changed(self.guide.name, self.page)

    def wrong_tries(self) -> int:
        return self.progress.page(self.guide.name, self.page.id).wrong

    def known(self, spec: str) -> Expected | None:
        """The current page's answer on ``spec`` when it was computed in this session."""
        return self._expected.get((self.page.id, spec))

    def remember(self, page_id: str, spec: str, expected: Expected) -> None:
        self._expected[(page_id, spec)] = expected

    def forget_model(self) -> None:
        """Another model was loaded: answers are computed again on it."""
        from lm_workbench.guide.check import forget_runs

        self._expected.clear()
        forget_runs()

    def answer(self, text: str, expected: Expected) -> Feedback:
        """Judge ``text`` against ``expected`` (the current page's answer on the loaded model) and record the try;
        a ``WorkbenchError`` when ``text`` is not an answer of the exercise's kind (nothing is recorded)."""
        page = self.page
        if page.exercise is None:
            raise WorkbenchError(f"the page {page.id!r} has no exercise")
        given = read_answer(page, text, expected)
        right = is_right(page, given, expected)
        record = self.progress.record(self.guide.name, page, right)
        if right:
            feedback = Feedback(page.id, True, f"Right: {expected.shown}. {expected.explanation}.", reveal=True)
        elif record.wrong >= REVEAL_AFTER:
            feedback = Feedback(page.id, False, f"Not right. After {record.wrong} tries, the answer on this model: "
                                f"{expected.shown}. {expected.explanation}.", reveal=True)
        else:
            hint = hint_for(page, record.wrong)
            left = REVEAL_AFTER - record.wrong
            feedback = Feedback(page.id, False, f"Not right ({left} {'try' if left == 1 else 'tries'} before the "
                                f"answer is shown)." + (f" Hint: {hint}" if hint else ""), hint=hint)
        self.events.answered.emit(feedback)
        self.events.progress_changed.emit()
        return feedback

    def reset(self) -> None:
        """Forget this student's progress in the guide (a teacher's reset) and go back to the first page."""
        self.progress.reset(self.guide.name)
        self.index = 0
        self._since = self._clock()
        self.events.progress_changed.emit()
        self.events.page_changed.emit(0)
