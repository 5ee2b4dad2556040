"""A workspace names its model so that another machine can open it: course models as ``course:<family>``."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

COURSE = "course:"


def portable_spec(spec: str, folder: str, course_models: Mapping[str, str]) -> str:
    """``course:<family>`` for a course model (wherever it lives on this machine), else the spec as loaded."""
    for family, course_folder in course_models.items():
        if folder and Path(folder).resolve() == Path(course_folder).resolve():
            return f"{COURSE}{family}"
    return spec


def local_spec(spec: str, course_models: Mapping[str, str]) -> tuple[str | None, str]:
    """(the spec to load here, or None; a problem to report, or "")."""
    if spec.startswith(COURSE):
        family = spec[len(COURSE):]
        if family in course_models:
            return course_models[family], ""
        return None, (f"the workspace's model is the course {family} model, which is not pre-trained on this "
                      f"machine (build it with `lm-workbench course-models --families {family}`)")
    if (spec.startswith("/") or spec[1:3] == ":\\") and not Path(spec).exists():
        return None, f"the workspace's model folder {spec} is not on this machine"
    return spec, ""
