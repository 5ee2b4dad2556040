"""Which presets and steps this installation can show, and why not.

A step is available when its view is registered, the view can apply every
setting the step gives (each view declares the setting keys it applies) and
every course model it names (``course:<family>``) has been pre-trained here.
A model is one spec or a list of candidates (the first one present on this
machine is used: a cached hub id, an existing folder, an installed course
model, ``default``), so a preset can prefer a larger local model and fall back
to a course model. A preset is available when its model can be had and every step's view is
registered; a step that is not (a setting its view cannot apply yet, a course
model not trained yet) is shown with its reason instead of being run.

While the window builds the course models, the families still to come are
``coming``: a step that needs one of them is available and ``waiting`` for it
(the window says "building, 2 of 5 done" and opens the step when it arrives).

References inside settings and models are resolved here too:
``course:<family>`` -> that course model's folder, ``preset-data:<file>`` ->
a file shipped with the built-in presets, ``file:<path>`` -> a path relative
to the preset file's folder.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Collection, Mapping

from lm_workbench.lectures.library import data_path
from lm_workbench.lectures.schema import Preset, PresetError, PresetStep

COURSE, DATA, FILE = "course:", "preset-data:", "file:"
DEFAULT = "default"


@dataclass(frozen=True)
class StepStatus:
    available: bool
    reason: str = ""
    waiting: tuple[str, ...] = ()  # course families the step needs that the running build has yet to make


@dataclass(frozen=True)
class PresetStatus:
    available: bool
    reason: str
    steps: tuple[StepStatus, ...]


def installed_course_models() -> dict[str, str]:
    """family -> folder of every course model on this machine (``course:<family>``'s: bundled ones win unless one
    built here is of this version and they are not)."""
    from lm_workbench.pretrain.course_folders import course_models_here

    return {family: str(folder) for family, folder in course_models_here().items()}


def course_hint(family: str) -> str:
    return (f"needs the course {family} model, which is not pre-trained on this machine: build it in the Pre-train "
            f"tab (Course models) or with `lm-workbench course-models --families {family}`")


def model_candidates(spec: str | tuple[str, ...] | list[str]) -> tuple[str, ...]:
    return (spec,) if isinstance(spec, str) else tuple(spec)


def present_here(spec: str, course_models: Mapping[str, str], cached: frozenset[str] | None = None) -> bool:
    """Whether ``spec`` can be opened without a network: the default model, an installed course model, an
    existing folder, or a hub id in the local hub cache."""
    from lm_workbench.engine.models.default import DEFAULT_MODEL_NAMES
    from lm_workbench.engine.models.sources import looks_like_path

    if spec == DEFAULT or spec.lower() in DEFAULT_MODEL_NAMES:
        return True
    if spec.startswith(COURSE):
        return spec[len(COURSE):] in course_models
    if looks_like_path(spec):
        return Path(spec).expanduser().is_dir()
    if cached is None:
        from lm_workbench.models.candidates import cached_hub_models

        cached = frozenset(cached_hub_models())
    return spec in cached


def choose_model(spec: str | tuple[str, ...], course_models: Mapping[str, str]) -> str | None:
    """The spec to open: a single spec as it is (None for a course model not installed); of a list of
    candidates, the first one present here (None when none is)."""
    if isinstance(spec, str):
        return None if missing_course_models(spec, course_models) else spec
    cached: frozenset[str] | None = None
    for candidate in spec:
        if not candidate.startswith(COURSE) and candidate != DEFAULT and cached is None:
            from lm_workbench.models.candidates import cached_hub_models

            cached = frozenset(cached_hub_models())
        if present_here(candidate, course_models, cached):
            return candidate
    return None


def model_problem(spec: str | tuple[str, ...], course_models: Mapping[str, str]) -> str:
    """Why no model of ``spec`` can be had here ("" when one can)."""
    if choose_model(spec, course_models) is not None:
        return ""
    courses = [c[len(COURSE):] for c in model_candidates(spec) if c.startswith(COURSE)]
    if courses:
        hint = course_hint(courses[-1])
        others = [c for c in model_candidates(spec) if not c.startswith(COURSE)]
        return hint + (f" (or have one of {', '.join(others)} in the local hub cache)" if others else "")
    return f"none of {', '.join(model_candidates(spec))} is on this machine"


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def missing_course_models(value: Any, course_models: Mapping[str, str]) -> list[str]:
    """The families named ``course:<family>`` in ``value`` that are not installed."""
    return sorted({s[len(COURSE):] for s in _strings(value) if s.startswith(COURSE)} - set(course_models))


def with_coming(course_models: Mapping[str, str], coming: Collection[str]) -> dict[str, str]:
    """``course_models`` plus the families the running build makes (folder "" until built)."""
    return {**{family: "" for family in coming}, **course_models}


def needed_families(step: PresetStep, preset_model: Any, course_models: Mapping[str, str]) -> list[str]:
    """The course families ``step`` opens: named in its settings, or its model (a candidate list's first
    present in ``course_models``) when that is a course model."""
    families = {s[len(COURSE):] for s in _strings(step.settings) if s.startswith(COURSE)}
    chosen = choose_model(step.model if step.model is not None else preset_model, course_models)
    if chosen is not None and chosen.startswith(COURSE):
        families.add(chosen[len(COURSE):])
    return sorted(families)


def step_status(step: PresetStep, views: Mapping[str, frozenset[str]] | None,
                course_models: Mapping[str, str], coming: Collection[str] = (),
                preset_model: Any = None) -> StepStatus:
    if coming:
        status = step_status(step, views, with_coming(course_models, coming), preset_model=preset_model)
        if not status.available:
            return status
        waiting = [f for f in needed_families(step, preset_model, with_coming(course_models, coming))
                   if f not in course_models]
        return StepStatus(True, "", tuple(waiting))
    if views is None:
        return StepStatus(False, "the window is not installed")
    if step.view not in views:
        return StepStatus(False, f"the {step.view!r} view is not in this version of the workbench yet")
    unknown = sorted(set(step.settings) - set(views[step.view]))
    if unknown:
        return StepStatus(False, f"the {step.view!r} view cannot apply {', '.join(unknown)} yet")
    missing = missing_course_models(step.settings, course_models)
    if missing:
        return StepStatus(False, course_hint(missing[0]))
    problem = model_problem(step.model, course_models) if step.model is not None else ""
    return StepStatus(not problem, problem)


def check_preset(preset: Preset, views: Mapping[str, frozenset[str]] | None,
                 course_models: Mapping[str, str], coming: Collection[str] = ()) -> PresetStatus:
    """What of ``preset`` can be shown, given the registered views (id -> the setting keys each applies) and
    the course families a running build will make (``coming``: their steps wait for them)."""
    steps = tuple(step_status(s, views, course_models, coming, preset.model) for s in preset.steps)
    course_models = with_coming(course_models, coming)
    if views is None:
        return PresetStatus(False, "the window is not installed", steps)
    absent = [s.view for s in preset.steps if s.view not in views]
    if absent:
        names = ", ".join(dict.fromkeys(repr(v) for v in absent))
        return PresetStatus(False, f"needs the {names} view, which this version of the workbench does not have "
                                   "yet", steps)
    problem = model_problem(preset.model, course_models)
    if problem:
        return PresetStatus(False, problem, steps)
    if not any(s.available for s in steps):
        return PresetStatus(False, steps[0].reason, steps)
    return PresetStatus(True, "", steps)


def resolve_model(spec: str | tuple[str, ...], default_model: str, course_models: Mapping[str, str]) -> str:
    """``default`` -> the default model, ``course:<family>`` -> its folder, a list -> its first candidate present
    here, anything else as given."""
    if not isinstance(spec, str):
        chosen = choose_model(spec, course_models)
        if chosen is None:
            raise PresetError(model_problem(spec, course_models))
        spec = chosen
    if spec == DEFAULT:
        return default_model
    if spec.startswith(COURSE):
        family = spec[len(COURSE):]
        if family not in course_models:
            raise PresetError(course_hint(family))
        return course_models[family]
    return spec


def resolve_settings(value: Any, preset: Preset, course_models: Mapping[str, str]) -> Any:
    """``value`` with every ``course:``, ``preset-data:`` and ``file:`` reference turned into a path."""
    if isinstance(value, dict):
        return {k: resolve_settings(v, preset, course_models) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve_settings(v, preset, course_models) for v in value]
    if isinstance(value, str):
        if value.startswith(COURSE):
            return resolve_model(value, value, course_models)
        if value.startswith(DATA):
            return str(data_path(value[len(DATA):]))
        if value.startswith(FILE):
            base = Path(preset.source).parent if preset.source and Path(preset.source).is_file() else Path.cwd()
            return str((base / value[len(FILE):]).resolve())
    return value
