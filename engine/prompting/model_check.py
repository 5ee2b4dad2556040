"""Whether a model is big enough for prompting to mean anything.

Prompting works because a large pre-trained model has seen sentences like the template's; the workbench's
course models (a few million parameters, trained for minutes) have not, so their prompt accuracy is near
chance. The lab says so plainly rather than leaving the student to wonder.
"""

from __future__ import annotations

from typing import Any

SMALL_MODEL_PARAMETERS = 50_000_000  # below this, expect prompting near chance


def is_small_model(loaded: Any) -> bool:
    """True for a course model or any model too small for zero- or few-shot prompting to work."""
    return int(getattr(loaded.info, "parameters", 0) or 0) < SMALL_MODEL_PARAMETERS


def small_model_note(loaded: Any, n_labels: int | None = None) -> str | None:
    """The plain sentence the lab shows for a small model, or None for a big enough one."""
    if not is_small_model(loaded):
        return None
    millions = int(loaded.info.parameters) / 1e6
    chance = f" (chance is {1 / n_labels:.0%} with {n_labels} labels)" if n_labels else ""
    return (f"{_short(loaded.info.spec)} has {millions:.1f}M parameters: a model this small has not learned enough "
            f"language for prompting, so expect accuracy near chance{chance}. A larger pre-trained model (e.g. "
            "bert-base-uncased or gpt2 from the hub cache) shows prompting work.")


def _short(spec: str) -> str:
    """A folder by its last two parts (``course-models/gpt2``, never just ``gpt2``, a hub id's name); a hub id as
    it is."""
    parts = [p for p in spec.replace("\\", "/").rstrip("/").split("/") if p]
    if len(parts) > 2 or spec.startswith(("/", ".", "~")):
        return "/".join(parts[-2:])
    return spec
