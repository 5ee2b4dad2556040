"""A one-line progress bar on stderr for long CLI steps (downloads): redrawn in place, then ended with a newline.

Shown only when it helps: stderr is a terminal and the command does not print ``--json``, unless
``--progress`` asks for it anyway (then each redraw is a line, so a log file stays readable).
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

WIDTH = 24  # characters of the bar itself


def wants_progress(args: Any, stream: TextIO | None = None) -> bool:
    """Whether a command run with ``args`` shows progress on ``stream`` (stderr)."""
    stream = stream or sys.stderr
    if getattr(args, "progress", False):
        return True
    return not getattr(args, "json", False) and bool(getattr(stream, "isatty", lambda: False)())


class StderrProgress:
    """Call it with the job's ``Progress`` events; ``close()`` ends the line."""

    def __init__(self, stream: TextIO | None = None, *, every_s: float = 0.2):
        self.stream = stream or sys.stderr
        self.in_place = bool(getattr(self.stream, "isatty", lambda: False)())
        self.every_s = every_s
        self._last = 0.0
        self._drawn = False

    def __call__(self, event: Any) -> None:
        from engine.progress import Progress

        if not isinstance(event, Progress) or not event.message:
            return
        now = time.monotonic()
        final = event.total > 0 and event.done >= event.total
        if not final and now - self._last < self.every_s and self._drawn:
            return
        self._last = now
        line = event.message
        if event.total > 0:
            filled = int(WIDTH * min(1.0, event.done / event.total))
            line = f"[{'#' * filled}{'.' * (WIDTH - filled)}] {100 * event.fraction:5.1f}% {line}"
        if self.in_place:
            self.stream.write("\r\033[K" + line)
        else:
            self.stream.write(line + "\n")
        self.stream.flush()
        self._drawn = True

    def close(self) -> None:
        if self._drawn and self.in_place:
            self.stream.write("\n")
            self.stream.flush()
        self._drawn = False
