"""Where this machine's course models live, what ``course:<family>`` names, and which are built at this version
(``plan_build``: what a build makes and what it skips): light (no training code), so the model-loading job can
resolve ``course:<family>`` without importing pre-training."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from lm_workbench.models.spec_kinds import ModelSpecKind
from lm_workbench.pretrain.course_build import CourseModelMissing, coming, family_name
from lm_workbench.pretrain.course_cards import is_current


def course_root() -> Path:
    """``<data dir>/course-models``."""
    from lm_workbench.paths import data_dir

    return data_dir() / "course-models"


COURSE_PREFIX = "course:"


def resolve_course_spec(spec: str) -> str:
    """``course:<family>`` -> the folder of this machine's course model of that family (as lecture presets
    resolve it), anything else as given; a family not built here is a ``WorkbenchError`` saying how to build it,
    or ``CourseModelComing`` ("building, 2 of 5 done") while this process's build will make it."""
    if not spec.startswith(COURSE_PREFIX):
        return spec
    family = spec[len(COURSE_PREFIX):].strip()
    if (folder := course_models_here().get(family)) is not None:
        return str(folder)
    if (on_its_way := coming(family)) is not None:
        raise on_its_way
    raise CourseModelMissing(family, f"the course {family} model is not pre-trained on this machine: build it in the "
                                     f"Pre-train tab (Course models) or with `lm-workbench course-models --families "
                                     f"{family}`")


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


def course_models_here() -> dict[str, Path]:
    """family -> the folder ``course:<family>`` opens: of the installed ones (``installed_course_models``), the
    first built at this version, else the first (a bundle's older model gives way to one rebuilt here)."""
    chosen: dict[str, Path] = {}
    for folder in installed_course_models():
        if folder.name not in chosen or (is_current(folder) and not is_current(chosen[folder.name])):
            chosen[folder.name] = folder
    return chosen


@dataclass(frozen=True)
class BuildPlan:
    """What a build of the chosen families does: ``build`` (in order) and ``skipped`` (already built at this
    version, family -> folder)."""

    build: tuple[str, ...]
    skipped: dict[str, Path]

    def skipped_line(self, how: str = "tick Build again to rebuild them") -> str:
        """"BERT and GPT-2 are already built at this version: skipped (how)." or ""."""
        if not self.skipped:
            return ""
        names = [family_name(f) for f in self.skipped]
        listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        verb = "is" if len(names) == 1 else "are"
        return f"{listed} {verb} already built at this version: skipped ({how})."


def current_models(root: Path | None = None) -> dict[str, Path]:
    """family -> folder of each course model built at this version: in ``root`` (default: this machine's
    course folder, plus a bundle's)."""
    folders = installed_course_models() if root is None or Path(root) == course_root() else \
        sorted(p.parent.parent for p in Path(root).glob("*/model/config.json"))
    found: dict[str, Path] = {}
    for folder in folders:
        if folder.name not in found and is_current(folder):
            found[folder.name] = folder
    return found


def plan_build(families: Iterable[str], root: Path | None = None, *, rebuild: bool = False) -> BuildPlan:
    """Which of ``families`` a build makes: all with ``rebuild``, else those not already built at this version
    (a cancelled or partial build resumes where it stopped)."""
    chosen = list(dict.fromkeys(families))
    done = {} if rebuild else current_models(root)
    return BuildPlan(tuple(f for f in chosen if f not in done), {f: done[f] for f in chosen if f in done})


# Registered through the lm_workbench.model_specs entry point (pyproject.toml): the loader rewrites course:<family>.
COURSE_SPEC = ModelSpecKind("course", rewrite=resolve_course_spec)
