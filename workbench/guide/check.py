"""Checking a student's answer to a page's exercise against the model loaded now (no Qt).

``page_run(page, spec, loader)`` is the page's view step as a ``StepRun`` on the model ``spec`` (its settings'
``course:`` / ``preset-data:`` / ``file:`` references resolved as a preset step's are); ``answer_of`` computes
the ``Expected`` answer on it (``lm_workbench.guide.questions``), refusing first when the model is not of a
family the page ``needs`` (the reason says which, and offers the page's own model). ``check_answer`` reads a
student's answer for the exercise's kind and compares it:

- click-layer: ``3`` or ``layer 3``; click-head: ``1.2``, ``1 2`` or ``layer 1 head 2``;
- click-token: a position (``4``) or the token's text (``it``; word marks and case ignored);
- choose: an option's label (case ignored) or its number from 1; number: within the stated tolerance;
- token: the token's text, word marks (Ġ ▁ ##), spaces and case ignored.

A tie accepts each tied answer. Hints come one per wrong try; the answer is shown after ``REVEAL_AFTER``.
"""

from __future__ import annotations

from lm_workbench.engine.wording import with_article

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.guide.page import FAMILIES, Page
from lm_workbench.guide.questions import Expected, expected
from lm_workbench.lectures.metrics.base import StepRun, _bare

REVEAL_AFTER = 3  # wrong tries before the answer is shown


class Unanswerable(WorkbenchError):
    """The page's exercise cannot be answered on this model; the message says why and which model to open."""


@dataclass(frozen=True)
class CheckResult:
    page: str
    correct: bool | None  # None: the exercise cannot be answered on this model
    expected: Any  # the answer in JSON (None when not computable)
    shown: str  # the answer as a student reads it
    explanation: str  # why, from the model (or why it cannot be answered)
    hint: str = ""
    model: str = ""
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        out = {"page": self.page, "correct": self.correct, "expected": self.expected,
               "explanation": self.explanation, "shown": self.shown, "model": self.model}
        if self.hint:
            out["hint"] = self.hint
        out["notes"] = list(self.notes)
        return out


def _preset(page: Page) -> Any:
    from lm_workbench.lectures.schema import Preset

    return Preset(name=page.id, title=page.title, description="", model=page.model, steps=(page.step,),
                  source=page.source if "/" in page.source and not page.source.startswith("built-in") else "")


def page_model(page: Page, course_models: Mapping[str, str] | None = None, default_model: str | None = None) -> str:
    """The model spec the page opens (``default`` and ``course:`` resolved; a ``GuideError``-like
    ``WorkbenchError`` when its course model is not built: the reason says how to build it)."""
    from lm_workbench.lectures.availability import installed_course_models, resolve_model

    if default_model is None:
        from lm_workbench.settings import load_settings

        default_model = load_settings().default_model
    course = installed_course_models() if course_models is None else course_models
    return resolve_model(page.step.model or page.model, default_model, course)


RUNS_KEPT = 8  # computed steps kept: pages that set up the same step (a probe sweep) share its computation
_RUNS: dict[str, StepRun] = {}


def page_run(page: Page, spec: str, loader: Callable[[str], Any],
             course_models: Mapping[str, str] | None = None) -> StepRun:
    """The page's step on ``spec``; the same step on the same loaded model is computed once (the last
    ``RUNS_KEPT`` are kept), so two pages on one probe sweep train it once."""
    import json

    from lm_workbench.lectures.availability import installed_course_models, resolve_settings

    course = installed_course_models() if course_models is None else course_models
    preset = _preset(page)
    settings = resolve_settings(page.step.settings, preset, course)
    inputs = resolve_settings(page.step.inputs, preset, course)
    key = json.dumps([page.view, settings, inputs, spec, id(loader(spec))], sort_keys=True, default=str)
    run = _RUNS.pop(key, None) or StepRun(page.view, settings, inputs, spec, loader)
    _RUNS[key] = run  # the newest last
    while len(_RUNS) > RUNS_KEPT:
        _RUNS.pop(next(iter(_RUNS)))
    return run


def forget_runs() -> None:
    """Drop the kept steps (another model was loaded: they hold the old one)."""
    _RUNS.clear()


def needs_problem(page: Page, loaded: Any) -> str:
    """Why ``loaded`` cannot answer ``page`` ("" when it can): a family the page does not ask about, no MLM or
    LM head."""
    info = loaded.info
    family = str(getattr(info.family, "value", info.family))
    families = [n for n in page.needs if n in FAMILIES]
    offer = f"open {page.model if isinstance(page.model, str) else page.model[0]} (the page's model) to answer it"
    if families and family not in families:
        return (f"this page asks about {with_article(' or '.join(families))} model; {info.spec} is "
                f"{with_article(family)}: {offer}")
    if "mlm" in page.needs and not info.has_mlm_head:
        return f"{info.spec} has no masked-LM head (its predictions would be noise): {offer}"
    if "lm" in page.needs and not (info.has_lm_head or info.has_mlm_head):
        return f"{info.spec} has no language-model head: {offer}"
    return ""


def answer_of(page: Page, spec: str, loader: Callable[[str], Any],
              course_models: Mapping[str, str] | None = None) -> Expected:
    """The right answer to ``page``'s exercise on the model ``spec`` now; ``Unanswerable`` says why not."""
    if page.exercise is None:
        raise Unanswerable(f"the page {page.id!r} has no exercise")
    try:
        run = page_run(page, spec, loader, course_models)
    except WorkbenchError as exc:  # a course model the page's settings name (a tokenizer) is not built here
        raise Unanswerable(f"this page cannot be set up here: {exc}") from None
    problem = needs_problem(page, run.loaded)
    if problem:
        raise Unanswerable(problem)
    try:
        return expected(run, page.exercise)
    except Unanswerable:
        raise
    except WorkbenchError as exc:
        model = page.model if isinstance(page.model, str) else page.model[0]
        raise Unanswerable(f"this page cannot be answered on {spec}: {exc} (open {model}, the page's model)") \
            from None


_INT = re.compile(r"-?\d+")


def _ints(text: str) -> list[int]:
    return [int(x) for x in _INT.findall(text)]


def read_answer(page: Page, text: str, exp: Expected) -> Any:
    """A student's answer as the exercise's kind reads it (``WorkbenchError`` when it is not one)."""
    kind, raw = page.exercise.kind, str(text).strip()
    if not raw:
        raise WorkbenchError("the answer is empty")
    if kind == "click-layer":
        ints = _ints(raw)
        if len(ints) != 1:
            raise WorkbenchError(f"answer with one layer number (e.g. 3), not {raw!r}")
        return ints[0]
    if kind == "click-head":
        ints = _ints(raw)
        if len(ints) != 2:
            raise WorkbenchError(f"answer with a layer and a head (e.g. 1.2 for layer 1, head 2), not {raw!r}")
        return tuple(ints)
    if kind == "click-token":
        if re.fullmatch(r"-?\d+", raw):
            return int(raw)
        matches = [i for i, t in enumerate(exp.tokens) if _bare(t) == _bare(raw)]
        if not matches:
            raise WorkbenchError(f"there is no token {raw!r} among {', '.join(map(repr, exp.tokens))}")
        right = [i for i in matches if i in (exp.accepted or (exp.value,))]
        return right[0] if right else matches[0]
    if kind == "choose":
        labels = [o.label for o in page.exercise.options]
        if raw.isdigit() and 1 <= int(raw) <= len(labels):
            return labels[int(raw) - 1]
        found = [lab for lab in labels if lab.lower() == raw.lower()]
        if not found:
            raise WorkbenchError(f"choose one of {', '.join(map(repr, labels))} (or its number), not {raw!r}")
        return found[0]
    if kind == "number":
        try:
            return float(raw.replace(",", "").rstrip("%")) / (100 if raw.endswith("%") else 1)
        except ValueError:
            raise WorkbenchError(f"answer with a number, not {raw!r}") from None
    return raw  # token


def is_right(page: Page, answer: Any, exp: Expected) -> bool:
    kind, accepted = page.exercise.kind, exp.accepted or (exp.value,)
    if kind == "number":
        ex = page.exercise
        tolerance = (ex.tolerance or 0.0) * (abs(float(exp.value)) if ex.relative else 1.0)
        return abs(float(answer) - float(exp.value)) <= tolerance + 1e-12
    if kind == "token":
        return any(_bare(str(answer)) == _bare(str(a)) for a in accepted)
    if kind == "click-head":
        return tuple(answer) in {tuple(a) for a in accepted}
    return answer in accepted


def hint_for(page: Page, wrong_tries: int) -> str:
    """The hint after ``wrong_tries`` wrong answers (the last one again when there are more tries than hints)."""
    hints = page.exercise.hints if page.exercise else ()
    return hints[min(wrong_tries, len(hints)) - 1] if hints and wrong_tries > 0 else ""


def check_answer(page: Page, answer: str, spec: str, loader: Callable[[str], Any], *, wrong_before: int = 0,
                 course_models: Mapping[str, str] | None = None) -> CheckResult:
    """``answer`` to ``page`` on the model ``spec`` (``wrong_before``: the student's wrong tries so far, for the
    hint). An exercise that cannot be answered on the model: ``correct`` None and the reason."""
    try:
        exp = answer_of(page, spec, loader, course_models)
    except Unanswerable as exc:
        return CheckResult(page.id, None, None, "", str(exc), model=spec, notes=[str(exc)])
    given = read_answer(page, answer, exp)
    right = is_right(page, given, exp)
    hint = "" if right else hint_for(page, wrong_before + 1)
    return CheckResult(page.id, right, exp.to_json(), exp.shown, exp.explanation, hint, spec)
