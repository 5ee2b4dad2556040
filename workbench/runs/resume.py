"""Continuing a training run that stopped (cancelled, failed, killed): where it left off.

Pre-training and fine-tuning keep their checkpoints in ``OUT/checkpoints/step-XXXXXXXX``
until the run finishes (``lm_workbench.engine.training.names``). ``resolve_resume`` turns what a user
names (a run's output folder or one checkpoint folder) into the checkpoint to load and the
output folder that wrote it; ``resumable_checkpoint`` says whether a folder holds an
unfinished run (the runs browser's Resume, no torch needed).
"""

from __future__ import annotations

import os
from pathlib import Path

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.training.names import STATE_FILE, latest_checkpoint

CHECKPOINTS_FOLDER = "checkpoints"


def resolve_resume(resume: str | os.PathLike) -> tuple[Path, Path]:
    """(the checkpoint folder to resume from, the output folder of the run that wrote it).

    ``resume`` is a run's output folder (its newest checkpoint is used) or one
    checkpoint folder (``.../checkpoints/step-XXXXXXXX``).
    """
    path = Path(resume)
    if not path.exists():
        raise WorkbenchError(f"nothing to resume at {path}: it does not exist")
    if (path / STATE_FILE).is_file():
        source = path.parent.parent if path.parent.name == CHECKPOINTS_FOLDER else path.parent
        return path, source
    found = latest_checkpoint(path / CHECKPOINTS_FOLDER)
    if found is None:
        raise WorkbenchError(f"{path} has no checkpoint to resume from (no {CHECKPOINTS_FOLDER}/step-... folder)")
    return found, path


def resumable_checkpoint(out_dir: str | os.PathLike | None) -> Path | None:
    """The newest checkpoint an unfinished run left in ``out_dir``, or None (no folder, nothing saved)."""
    if not out_dir:
        return None
    return latest_checkpoint(Path(out_dir) / CHECKPOINTS_FOLDER)


def fault_keeping_checkpoints(exc: BaseException, out_dir: str | os.PathLike, how_to_resume: str) -> Exception | None:
    """A write that failed under a training run (a full disk, a folder made read-only, a file deleted) as one
    ``MachineFault`` line that says what was kept and how to go on (``how_to_resume``: "continue from it
    with ..."); None when ``exc`` is not such a fault."""
    from lm_workbench.faults import as_fault

    try:
        kept = resumable_checkpoint(out_dir)
    except OSError:
        kept = None
    if kept is None:
        then = "nothing was saved to resume from"
    else:
        then = f"the last good checkpoint ({kept.name}) is kept in {kept.parent}: {how_to_resume}"
    return as_fault(exc, then=then)
