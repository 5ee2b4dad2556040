"""Which presets and steps this installation can show, and why not.

A step is available when its view is registered, the view can apply every
setting the step gives (each view declares the setting keys it applies) and
every course model it names (``course:<family>``) has been pre-trained here.
A preset is available when its model can be had and every step's view is
registered; a step that is not (a setting its view cannot apply yet, a course
model not trained yet) is shown with its reason instead of being run.

References inside settings and models are resolved here too:
``course:<family>`` -> that course model's folder, ``preset-data:<file>`` ->
a file shipped with the built-in presets, ``file:<path>`` -> a path relative
to the preset file's folder.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from workbench.presets.library import data_path
from workbench.presets.schema import Preset, PresetError, PresetStep

COURSE, DATA, FILE = "course:", "preset-data:", "file:"
DEFAULT = "default"


@dataclass(frozen=True)
class StepStatus:
    available: bool
    reason: str = ""


@dataclass(frozen=True)
class PresetStatus:
    available: bool
    reason: str
    steps: tuple[StepStatus, ...]


def installed_course_models() -> dict[str, str]:
    """family -> folder of every course model on this machine (bundled ones win)."""
    from workbench.pretrain.course_models import installed_course_models as found

    models: dict[str, str] = {}
    for folder in found():
        models.setdefault(folder.name, str(folder))
    return models


def course_hint(family: str) -> str:
    return (f"needs the course {family} model, which is not pre-trained on this machine: build it in the Pre-train "
            f"tab (Course models) or with `lm-workbench course-models --families {family}`")


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


def step_status(step: PresetStep, views: Mapping[str, frozenset[str]] | None,
                course_models: Mapping[str, str]) -> StepStatus:
    if views is None:
        return StepStatus(False, "the window is not installed")
    if step.view not in views:
        return StepStatus(False, f"the {step.view!r} view is not in this version of the workbench yet")
    unknown = sorted(set(step.settings) - set(views[step.view]))
    if unknown:
        return StepStatus(False, f"the {step.view!r} view cannot apply {', '.join(unknown)} yet")
    missing = missing_course_models([step.settings, step.model or ""], course_models)
    if missing:
        return StepStatus(False, course_hint(missing[0]))
    return StepStatus(True)


def check_preset(preset: Preset, views: Mapping[str, frozenset[str]] | None,
                 course_models: Mapping[str, str]) -> PresetStatus:
    """What of ``preset`` can be shown, given the registered views (id -> the setting keys each applies)."""
    steps = tuple(step_status(s, views, course_models) for s in preset.steps)
    if views is None:
        return PresetStatus(False, "the window is not installed", steps)
    absent = [s.view for s in preset.steps if s.view not in views]
    if absent:
        names = ", ".join(dict.fromkeys(repr(v) for v in absent))
        return PresetStatus(False, f"needs the {names} view, which this version of the workbench does not have "
                                   "yet", steps)
    missing = missing_course_models(preset.model, course_models)
    if missing:
        return PresetStatus(False, course_hint(missing[0]), steps)
    if not any(s.available for s in steps):
        return PresetStatus(False, steps[0].reason, steps)
    return PresetStatus(True, "", steps)


def resolve_model(spec: str, default_model: str, course_models: Mapping[str, str]) -> str:
    """``default`` -> the default model, ``course:<family>`` -> its folder, anything else as given."""
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
