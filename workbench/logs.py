"""The log file: ``data_dir()/logs/lm-workbench.log``, rotated, for the CLI and the window.

A user sees one line for every failure; the full traceback goes here, and the line names this file
(``log_hint``). ``setup_logging`` is called once by each entry point (``lm-workbench`` commands, the
window, a long-run lane's child); calling it again (or for another ``LM_WORKBENCH_HOME``) replaces
the handler. A log that cannot be written (a full disk, a read-only data folder) is skipped
silently: the application must not fail, or print tracebacks, because its log cannot grow.
"""

from __future__ import annotations

import logging
import logging.handlers
import sys
from pathlib import Path

LOG_FOLDER = "logs"
LOG_FILE = "lm-workbench.log"
MAX_BYTES = 1_000_000
BACKUPS = 3
FORMAT = "%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"

_state: dict[str, Path | None] = {"path": None}


class _QuietFileHandler(logging.handlers.RotatingFileHandler):
    """A rotating file handler that drops a record it cannot write instead of printing a traceback."""

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802 - logging's name
        pass


class _ConsoleLines(logging.Handler):
    """Warnings on the current ``sys.stderr`` as bare one-line messages (what Python prints when no
    handler is set up); a record with a traceback goes to the log file only."""

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info:  # a traceback is for the log file; the user got its one line already
            return
        try:
            line = " ".join(record.getMessage().split("\n")[0].split())
            print(line, file=sys.stderr)
        except Exception:  # noqa: BLE001 - a closed stderr must not break the caller
            pass


def log_path() -> Path:
    """Where the log file goes: ``data_dir()/logs/lm-workbench.log``."""
    from lm_workbench.paths import data_dir

    return data_dir() / LOG_FOLDER / LOG_FILE


def current_log() -> Path | None:
    """The log file this process writes, or None when logging is not set up (or cannot write)."""
    return _state["path"]


def log_hint() -> str:
    """``"details in <log file>"`` for a one-line message, or "" when there is no log file."""
    path = current_log()
    return f"details in {path}" if path is not None else ""


def with_hint(line: str) -> str:
    """``line`` with ``(details in <log>)`` appended when there is a log file."""
    hint = log_hint()
    return f"{line} ({hint})" if hint else line


def setup_logging(*, console: bool = False, level: int = logging.INFO) -> Path | None:
    """Send this process's log records (``level`` and up) to the rotating log file; return its path.

    ``console``: also print warnings on stderr as one-line messages (the CLI, where Python would print
    them anyway once a handler exists). Returns None when the file cannot be opened.
    """
    stop_logging()
    root = logging.getLogger()
    if console:
        stderr_lines = _ConsoleLines(logging.WARNING)
        root.addHandler(stderr_lines)
    try:
        path = log_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        handler = _QuietFileHandler(path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8")
    except OSError:
        return None
    handler.setLevel(level)
    handler.setFormatter(logging.Formatter(FORMAT))
    root.addHandler(handler)
    if root.level == logging.NOTSET or root.level > level:
        root.setLevel(level)
    _state["path"] = path
    return path


def detach_console() -> None:
    """Stop printing warnings on stderr (the CLI, when its command is done; the log file stays)."""
    _remove_handlers((_ConsoleLines,), close=False)


def stop_logging() -> None:
    """Close the log file and stop printing warnings (tests, a process that changes ``LM_WORKBENCH_HOME``)."""
    _remove_handlers((_QuietFileHandler, _ConsoleLines), close=True)
    _state["path"] = None


def _remove_handlers(kinds: tuple[type, ...], *, close: bool) -> None:
    root = logging.getLogger()
    for handler in list(root.handlers):
        if isinstance(handler, kinds):
            root.removeHandler(handler)
            if close:
                handler.close()
