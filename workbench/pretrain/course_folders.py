"""Where this machine's course models live and what ``course:<family>`` names: light (no training code), so the
model-loading job can resolve ``course:<family>`` without importing pre-training."""

from __future__ import annotations

from pathlib import Path

from lm_workbench.models.spec_kinds import ModelSpecKind


def course_root() -> Path:
    """``<data dir>/course-models``."""
    from lm_workbench.paths import data_dir

    return data_dir() / "course-models"


COURSE_PREFIX = "course:"


def resolve_course_spec(spec: str) -> str:
    """``course:<family>`` -> the folder of this machine's course model of that family (as lecture presets
    resolve it), anything else as given; a family not built here is a ``WorkbenchError`` saying how to build it."""
    if not spec.startswith(COURSE_PREFIX):
        return spec
    from lm_workbench.engine.errors import WorkbenchError

    family = spec[len(COURSE_PREFIX):].strip()
    for folder in installed_course_models():
        if folder.name == family:
            return str(folder)
    raise WorkbenchError(f"the course {family} model is not pre-trained on this machine: build it in the Pre-train "
                         f"tab (Course models) or with `lm-workbench course-models --families {family}`")


def installed_course_models() -> list[Path]:
    """Course model folders on this machine: those a desktop bundle ships (``<bundle>/course-models``) and those
    trained into ``course_root()``: each ``<family>`` folder holding ``model/config.json``; bundled first."""
    import sys

    roots = [course_root()]
    if getattr(sys, "frozen", False) and hasattr(sys, "_MEIPASS"):
        roots.insert(0, Path(sys._MEIPASS) / "course-models")
    found: list[Path] = []
    for root in roots:
        if root.is_dir():
            found += sorted(p.parent.parent for p in root.glob("*/model/config.json"))  # opens as its model
    return found


# Registered through the lm_workbench.model_specs entry point (pyproject.toml): the loader rewrites course:<family>.
COURSE_SPEC = ModelSpecKind("course", rewrite=resolve_course_spec)
