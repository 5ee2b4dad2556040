"""Checkpoint folder names, readable without torch: what a run's ``checkpoints/`` folder holds.

A checkpoint is a folder ``step-XXXXXXXX`` whose ``state.json`` is written
last (``lm_workbench.engine.training.checkpoint``); a folder without it, or a hidden
``.tmp-...`` one, is not a checkpoint. The window and the CLI read these to
offer Resume before anything heavy is imported.
"""

from __future__ import annotations

import re
from pathlib import Path

STATE_FILE = "state.json"
_STEP_DIR = re.compile(r"^step-(\d+)$")


def checkpoint_name(step: int) -> str:
    return f"step-{int(step):08d}"


def list_checkpoints(checkpoint_dir: Path) -> list[Path]:
    """The complete checkpoints in a folder, oldest first (temporary folders are ignored)."""
    folder = Path(checkpoint_dir)
    if not folder.is_dir():
        return []
    found = [(int(m.group(1)), p) for p in folder.iterdir() if (m := _STEP_DIR.match(p.name)) and p.is_dir()
             and (p / STATE_FILE).is_file()]
    return [p for _, p in sorted(found)]


def latest_checkpoint(checkpoint_dir: Path) -> Path | None:
    """The newest complete checkpoint in ``checkpoint_dir``, or None."""
    found = list_checkpoints(checkpoint_dir)
    return found[-1] if found else None


def checkpoint_step_of(path: Path) -> int | None:
    """The step in a checkpoint folder's name (``step-00000042`` -> 42), None for any other name."""
    match = _STEP_DIR.match(Path(path).name)
    return int(match.group(1)) if match else None
