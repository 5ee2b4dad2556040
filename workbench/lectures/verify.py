"""Evaluate presets' claims on the models they name: holds, fails, or cannot run here (no Qt).

``verify_presets(presets)`` computes every claimed step as its view does (``lm_workbench.lectures.metrics``), on
the step's model (its own, else the preset's: ``default``, ``course:<family>``, a list of candidates: the first
present here), and returns one ``ClaimOutcome`` per claim, in file order:

- ``holds`` / ``fails``: the metric (and what it is compared with) computed; a step the view cannot compute on
  this model (a token that is not one token here, a model without the head the view needs) fails with the
  reason, as the view would show that instead of what the caption says; a value that cannot be computed (NaN)
  fails with ``value`` None and the reason;
- ``cannot run``: a model the step needs is not on this machine (a course model not built yet: the reason says
  which and how to build it).

Each model is loaded once for all presets (``ModelCache``); what a step trains goes to a temporary folder that
is removed at the end.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.lectures.availability import (
    course_hint, missing_course_models, present_here, resolve_model, resolve_settings,
)
from lm_workbench.lectures.claims import Claim, MetricRef, compare
from lm_workbench.lectures.metrics import StepRun, metric_value
from lm_workbench.lectures.schema import Preset, PresetError

HOLDS, FAILS, CANNOT_RUN = "holds", "fails", "cannot run"


@dataclass(frozen=True)
class ClaimOutcome:
    preset: str
    step: int  # 1-based, as the caption bar counts
    claim: str  # the claim's text
    predicate: str  # metric op value, e.g. "effect(layer=0, token='class') > 0.5"
    op: str  # the comparison: > >= < <= == != ~=
    status: str  # HOLDS, FAILS or CANNOT_RUN
    value: float | None = None  # the metric's value (None: not computed, or not computable)
    compared_to: float | None = None  # the other side: the claim's number, or the other metric's value
    model: str = ""  # the model the step ran on
    reason: str = ""  # why it fails or cannot run

    @property
    def holds(self) -> bool | None:
        """True / False when the claim was evaluated; None when it could not run here."""
        return None if self.status == CANNOT_RUN else self.status == HOLDS

    def to_json(self) -> dict[str, Any]:
        out = {"preset": self.preset, "step": self.step, "claim": self.claim, "value": self.value,
               "holds": self.holds, "status": self.status, "predicate": self.predicate, "op": self.op,
               "compared_to": self.compared_to, "model": self.model}
        if self.reason:
            out["reason"] = self.reason
        return out


class ModelCache:
    """Loads each model spec once (as the window's load job does) and keeps it for every later step."""

    def __init__(self, load: Callable[[str], Any] | None = None) -> None:
        self._load = load or _load_model
        self._models: dict[str, Any] = {}

    def __call__(self, spec: str) -> Any:
        if spec not in self._models:
            self._models[spec] = self._load(spec)
        return self._models[spec]


def _load_model(spec: str) -> Any:
    from lm_workbench.models.loader import load_model  # imports torch: only when a step needs a model

    return load_model(spec)


@dataclass
class _Steps:
    """The ``StepRun`` of each step of one preset (made when a claim first needs it), or why it cannot run."""

    preset: Preset
    course_models: Mapping[str, str]
    default_model: str
    loader: Callable[[str], Any]
    workdir: str
    runs: dict[int, StepRun | str] = field(default_factory=dict)

    def get(self, index: int) -> StepRun | str:
        """Step ``index`` (0-based) as a ``StepRun``, or the reason it cannot run here."""
        if index not in self.runs:
            self.runs[index] = self._make(index)
        return self.runs[index]

    def _make(self, index: int) -> StepRun | str:
        step = self.preset.steps[index]
        missing = missing_course_models(step.settings, self.course_models)
        if missing:
            return course_hint(missing[0])
        try:
            model = resolve_model(step.model or self.preset.model, self.default_model, self.course_models)
        except PresetError as exc:
            return str(exc)
        if not present_here(model, self.course_models):
            return f"{model} is not on this machine (neither an existing folder nor a model in the local hub cache)"
        settings = resolve_settings(step.settings, self.preset, self.course_models)
        inputs = resolve_settings(step.inputs, self.preset, self.course_models)
        return StepRun(step.view, settings, inputs, model, self.loader, index=index, workdir=self.workdir,
                       earlier=lambda: [r for i in range(index) if isinstance(r := self.get(i), StepRun)])


def _value(steps: _Steps, own: int, ref: MetricRef) -> float | None:
    """The value of ``ref`` (on step ``own``, or the step it names); raises ``_CannotRun``."""
    index = own if ref.step is None else ref.step - 1
    run = steps.get(index)
    if isinstance(run, str):
        raise _CannotRun(run if index == own else f"step {index + 1}, which this claim compares with: {run}")
    return metric_value(run, ref.name, ref.args)


class _CannotRun(Exception):
    pass


def evaluate_claim(steps: _Steps, index: int, claim: Claim) -> ClaimOutcome:
    base = dict(preset=steps.preset.name, step=index + 1, claim=claim.text, predicate=claim.predicate(), op=claim.op)
    model = ""
    try:
        run = steps.get(index)
        model = run.model if isinstance(run, StepRun) else ""
        value = _value(steps, index, claim.metric)
        other = _value(steps, index, claim.value) if isinstance(claim.value, MetricRef) else float(claim.value)
    except _CannotRun as exc:
        return ClaimOutcome(**base, status=CANNOT_RUN, model=model, reason=str(exc))
    except WorkbenchError as exc:
        return ClaimOutcome(**base, status=FAILS, model=model, reason=f"the view cannot show it here: {exc}")
    if value is None or other is None:
        return ClaimOutcome(**base, status=FAILS, value=value, compared_to=other, model=model,
                            reason="the value cannot be computed on this model (not a finite number)")
    holds = compare(value, claim.op, other, claim.tolerance)
    return ClaimOutcome(**base, status=HOLDS if holds else FAILS, value=value, compared_to=other, model=model)


def verify_presets(presets: Iterable[Preset], *, course_models: Mapping[str, str] | None = None,
                   default_model: str | None = None, loader: Callable[[str], Any] | None = None,
                   on_outcome: Callable[[ClaimOutcome], None] | None = None) -> list[ClaimOutcome]:
    """Every claim of ``presets``, evaluated (see the module); ``on_outcome`` hears each as it comes."""
    from lm_workbench.lectures.availability import installed_course_models

    if course_models is None:
        course_models = installed_course_models()
    if default_model is None:
        from lm_workbench.settings import load_settings

        default_model = load_settings().default_model
    loader = loader or ModelCache()
    workdir = tempfile.mkdtemp(prefix="lm-workbench-verify-")
    outcomes: list[ClaimOutcome] = []
    try:
        for preset in presets:
            steps = _Steps(preset, course_models, default_model, loader, workdir)
            for index, step in enumerate(preset.steps):
                for claim in step.claims:
                    outcome = evaluate_claim(steps, index, claim)
                    outcomes.append(outcome)
                    if on_outcome is not None:
                        on_outcome(outcome)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return outcomes
