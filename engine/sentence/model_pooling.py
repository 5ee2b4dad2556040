"""The one place that resolves the pooling ``model``: what a model's folder declares.

A sentence-transformers folder declares it in ``modules.json`` (a Pooling module, whose ``config.json`` sets one
mode flag, and optionally a Normalize module: L2 normalisation after pooling); a sentence-embedding run's output
folder in its ``finetune.json`` (``pooling``, the mode the run trained with). all-MiniLM-L6-v2 declares mean pooling
followed by L2 normalisation.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.sentence.names import POOLING_MODES, POOLINGS, ST_POOLING_FLAGS, pooling_name


def model_pooling(model_folder: str | Path) -> tuple[str, bool] | None:
    """(mode, normalize) the folder declares, or None when it declares none; mode is one of
    ``POOLING_MODES``. ``WorkbenchError`` when the declaration cannot be read or names several modes."""
    folder = Path(model_folder)
    modules_file = folder / "modules.json"
    if not modules_file.is_file():
        return _trained_pooling(folder)
    try:
        modules = json.loads(modules_file.read_text(encoding="utf-8"))
        pooling = next((m for m in modules if str(m.get("type", "")).endswith(".Pooling")), None)
        if pooling is None:
            return None
        config = json.loads((folder / pooling.get("path", "") / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, AttributeError, TypeError) as exc:
        raise WorkbenchError(f"the pooling configuration in {folder} cannot be read: {exc}") from exc
    modes = [mode for mode, flag in ST_POOLING_FLAGS.items() if config.get(flag)]
    if len(modes) != 1:
        raise WorkbenchError(f"{folder} declares pooling {modes or 'none'}; only one single mode is supported")
    normalize = any(str(m.get("type", "")).endswith(".Normalize") for m in modules)
    return modes[0], normalize


def _trained_pooling(folder: Path) -> tuple[str, bool] | None:
    """A sentence-embedding run's output folder (its ``finetune.json``): the pooling the run trained with."""
    manifest = folder / "finetune.json"
    if not manifest.is_file():
        return None
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise WorkbenchError(f"cannot read {manifest}: {exc}") from exc
    if data.get("task") != "sentence-embedding" or pooling_name(str(data.get("pooling"))) not in POOLING_MODES:
        return None
    return pooling_name(str(data["pooling"])), False


def resolve_pooling(pooling: str, model_folder: str | Path | None,
                    offered: Sequence[str] = POOLINGS) -> tuple[str, bool]:
    """(mode, normalize) for a pooling choice: a mode as it is (never normalised), or ``model``: the folder's own
    declaration. ``offered`` is what the asking place accepts (its message lists it); ``WorkbenchError`` for a name
    outside it, or ``model`` on a folder that declares nothing."""
    pooling = pooling_name(pooling)
    if pooling not in offered or pooling not in POOLINGS:
        raise WorkbenchError(f"unknown pooling {pooling!r}; choose one of {', '.join(offered)}")
    if pooling != "model":
        return pooling, False
    declared = model_pooling(model_folder) if model_folder is not None else None
    if declared is None:
        modes = [m for m in offered if m != "model"]
        modes = ", ".join(modes[:-1]) + f" or {modes[-1]}" if len(modes) > 1 else "".join(modes)
        raise WorkbenchError(f"this model declares no pooling of its own (no sentence-transformers modules.json); "
                             f"choose {modes} pooling")
    return declared
