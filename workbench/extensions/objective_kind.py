"""Pre-training objectives as an extension kind (entry-point group ``lm_workbench.objectives``)."""

from __future__ import annotations

from typing import Any, Iterable

from lm_workbench.engine.models.families import Family
from lm_workbench.engine.plugin_api import BILM, Objective, Requirements
from lm_workbench.extensions.extension_kind import ExtensionKind, config_problem

FAMILIES = {f.value for f in Family} | {BILM}


def family_names(families: Iterable[Any]) -> list[str]:
    return sorted(getattr(f, "value", str(f)) for f in families)


def objective_families(cls: type) -> list[str]:
    families = getattr(cls, "families", None) or ()
    return family_names(families) if isinstance(families, (set, frozenset, list, tuple)) else []


def check_objective(cls: type) -> str | None:
    """Why the ``Objective`` subclass ``cls`` cannot be used, or None when it can."""
    if not isinstance(cls.requires, Requirements):
        return "'requires' is not a Requirements"
    unknown = [f for f in family_names(cls.families) if f not in FAMILIES]
    if unknown or not cls.families:
        return f"families must be model families ({', '.join(sorted(FAMILIES))}), not {sorted(unknown) or 'none'}"
    return config_problem(cls)


OBJECTIVES = ExtensionKind(name="objective", group="lm_workbench.objectives", base=Objective,
                           check=check_objective, families=objective_families)
