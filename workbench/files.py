"""Small file operations the settings, the run store and the run outputs share.

``move_aside`` renames a damaged file to ``<name>.corrupt-<timestamp>`` next to it (never deleting
it), so the user can look at it or recover it; ``remove_partial`` removes what a write that failed
left half done.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path


def aside_name(path: Path) -> Path:
    """A free ``<name>.corrupt-<timestamp>[-n]`` path beside ``path``."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    n = 1
    while target.exists():
        target = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
        n += 1
    return target


def move_aside(path: str | os.PathLike, target: Path | None = None) -> Path:
    """Rename a damaged file to ``<name>.corrupt-<timestamp>[-n]`` (or ``target``); return the new path."""
    path = Path(path)
    target = target or aside_name(path)
    os.replace(path, target)
    return target


def remove_partial(path: str | os.PathLike) -> None:
    """Remove a file or folder a failed write left behind; a path already gone is fine."""
    path = Path(path)
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
    except OSError:
        pass  # the disk that refused the write may refuse this too: nothing more to do
