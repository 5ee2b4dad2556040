"""What a run with an output folder shares: where the folder goes by default, and its ``summary.json``.

Pre-training and fine-tuning write ``summary.json`` atomically (``write_json_atomic``) with numbers that
JSON can hold (``finite``: NaN and infinity become null) and read it back with ``read_summary``. Kept light:
no torch.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from lm_workbench.engine.errors import WorkbenchError

SUMMARY_FILE = "summary.json"


def finite(value: Any) -> float | None:
    """``value`` as a float, or None when it is not a number or not finite (NaN, infinity)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def write_json_atomic(path: Path, data: dict[str, Any]) -> None:
    """Write JSON to a temporary file and rename it into place (a crash never leaves half a file; a failed
    write removes the temporary file and raises an ``OSError`` naming ``path``)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2, default=str)
            fh.write("\n")
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)  # no half-written file is left behind
        if exc.filename is None:
            raise OSError(exc.errno, exc.strerror, str(path)) from None
        raise


def read_summary(out_dir: str | os.PathLike) -> dict[str, Any]:
    """A finished run's ``summary.json``."""
    path = Path(out_dir) / SUMMARY_FILE
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise WorkbenchError(f"{out_dir} has no {SUMMARY_FILE}: the run did not finish") from None


def default_out_dir(folder: str, label: str, *, time_first: bool = False) -> Path:
    """``<data>/<folder>/<label>-<date-time>`` (``<date-time>-<label>`` when ``time_first``): a new run's
    output folder when none is named."""
    from lm_workbench.paths import data_dir

    stamp = time.strftime("%Y%m%d-%H%M%S")
    return data_dir() / folder / (f"{stamp}-{label}" if time_first else f"{label}-{stamp}")
