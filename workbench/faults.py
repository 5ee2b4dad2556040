"""What a user sees when the machine fails them: one line that names the file and what to do.

``describe(exc)`` is that line for an ``OSError`` (a full disk, a quota, a read-only folder, a file that
vanished), a ``sqlite3.Error`` (the run store), a safetensors or tokenizers error, or a
``WorkbenchError`` (its own line); None for anything else, which is a bug. ``user_line(exc)`` is what
the CLI prints and the window shows for any exception: the line, with the log file that holds the
traceback (``lm_workbench.logs``), or "Unexpected error: ..." for a bug. ``exit_code(exc)``: 2 for bad
input, 1 for everything else (the machine's faults and bugs).
"""

from __future__ import annotations

import errno
import sqlite3
from typing import Any

from lm_workbench.engine.errors import MachineFault, WorkbenchError, os_error_in
from lm_workbench.logs import with_hint

EXIT_FAULT, EXIT_USAGE = 1, 2
SPACE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
WRITE_ERRNOS = SPACE_ERRNOS | {errno.EROFS, errno.EACCES, errno.EPERM}
_TOKENIZER_MODULES = ("tokenizers", "transformers.tokenization", "transformers.models.auto.tokenization",
                      "transformers.convert_slow_tokenizer", "lm_workbench.engine.models.tokenizer",
                      "lm_workbench.engine.pretrain.tokenizer_training")
_SQLITE = {  # primary result code -> what it means for the run store, and what to do
    5: "is busy (another LM Workbench is writing to it); try again in a moment",
    6: "is locked by another connection; try again in a moment",
    8: "cannot be written (a read-only file or folder); check the permissions of its folder",
    10: "could not be read or written (input/output error); the disk may be failing or full",
    11: "is damaged; start LM Workbench again and it is set aside and rebuilt from what can still be read",
    13: "cannot grow: the disk is full; free some space and try again",
    14: "cannot be opened; check that its folder exists and can be written",
    26: "is not a database; start LM Workbench again and it is set aside and rebuilt from what can still be read",
}


def _name(exc: OSError) -> str:
    return str(exc.filename) if exc.filename is not None else "a file"


def describe_os_error(exc: OSError) -> str:
    """One line for an ``OSError``: which file, what happened, what to do."""
    name, code = _name(exc), exc.errno
    if code == errno.ENOSPC:
        return (f"no space left on the disk for {name}: free some space or choose a folder on another disk, "
                "then try again")
    if code == errno.EDQUOT:
        return f"the disk quota is used up, so {name} could not be written: free some space, then try again"
    if code == errno.EFBIG:
        return (f"{name} could not be written: it grew larger than this system lets a file grow (File too large); "
                "raise the limit (ulimit -f) or choose another disk, then try again")
    if code == errno.EROFS:
        return f"{name} is on a read-only file system: choose a folder you can write to"
    if code in (errno.EACCES, errno.EPERM) or isinstance(exc, PermissionError):
        return f"permission denied for {name}: choose a folder you can write to, or change its permissions"
    if code == errno.ENOENT or isinstance(exc, FileNotFoundError):
        return f"{name} does not exist (was it moved or deleted?): put it back or choose another path"
    if code == errno.ENOTDIR:
        return f"{name}: part of that path is a file, not a folder; choose another path"
    if code == errno.EISDIR:
        return f"{name} is a folder where a file was expected; choose a file"
    if code == errno.EIO:
        return f"reading or writing {name} failed (input/output error): the disk may be failing or was removed"
    if code in (errno.EMFILE, errno.ENFILE):
        return "too many files are open: close other programs (or raise the limit, ulimit -n) and try again"
    reason = exc.strerror or " ".join(str(exc).split()) or type(exc).__name__
    if exc.filename is None and exc.errno is None:  # not about a file (a connection, a library's own OSError)
        return reason
    return f"{name}: {reason}"


def _store_path(exc: BaseException) -> str:
    path = getattr(exc, "store_path", None)
    if path is not None:
        return str(path)
    try:
        from lm_workbench.paths import runs_db_path

        return str(runs_db_path())
    except OSError:
        return "(in the data folder)"


def describe_sqlite_error(exc: sqlite3.Error) -> str:
    """One line for a failure of the run store (``store_path`` on the error names the file)."""
    code = getattr(exc, "sqlite_errorcode", None)
    meaning = _SQLITE.get(code & 0xFF) if isinstance(code, int) else None
    first = " ".join(str(exc).split()) or type(exc).__name__
    return f"the run store {_store_path(exc)} {meaning or f'failed ({first})'}"


def _raised_in(exc: BaseException, prefixes: tuple[str, ...]) -> bool:
    tb = exc.__traceback__
    while tb is not None:
        if str(tb.tb_frame.f_globals.get("__name__", "")).startswith(prefixes):
            return True
        tb = tb.tb_next
    return False


def is_safetensors_error(exc: BaseException) -> bool:
    return type(exc).__name__ == "SafetensorError" and type(exc).__module__.startswith("safetensors")


def is_tokenizers_error(exc: BaseException) -> bool:
    """The tokenizers library raises plain ``Exception``s; tell them by where they were raised."""
    return type(exc) is Exception and _raised_in(exc, _TOKENIZER_MODULES)


def describe(exc: BaseException, file: Any = None) -> str | None:
    """One line for a fault of the machine or a user error; None for a bug. ``file``: the file being
    read or written when the error does not say (safetensors and tokenizers errors never do)."""
    if isinstance(exc, WorkbenchError):
        return str(exc)
    if isinstance(exc, OSError):
        if exc.filename is None and file is not None and exc.errno is not None:
            exc = OSError(exc.errno, exc.strerror, str(file))
        return describe_os_error(exc)
    if isinstance(exc, sqlite3.Error):
        return describe_sqlite_error(exc)
    safetensors, tokenizers = is_safetensors_error(exc), is_tokenizers_error(exc)
    if safetensors or tokenizers:
        os_error = os_error_in(exc, file)
        if os_error is not None:
            return describe_os_error(os_error)
        first = " ".join(str(exc).split())[:200]
        what = "a weights file" if safetensors else "a tokenizer file"
        where = f" ({file})" if file is not None else ""
        return (f"{what}{where} could not be read: it is damaged or in another format ({first}); "
                "re-save or re-download the model")
    return None


def is_fault(exc: BaseException) -> bool:
    """Whether ``exc`` is a fault of the machine (not a bug, not bad input)."""
    if isinstance(exc, MachineFault):
        return True
    return not isinstance(exc, WorkbenchError) and describe(exc) is not None


def exit_code(exc: BaseException) -> int:
    """2 for bad input (a ``WorkbenchError`` that is not a ``MachineFault``), 1 for anything else."""
    return EXIT_USAGE if isinstance(exc, WorkbenchError) and not isinstance(exc, MachineFault) else EXIT_FAULT


def user_line(exc: BaseException) -> str:
    """What the user sees for ``exc``: a user error's own line; a fault's line with the log file; a bug as
    "Unexpected error: ..." with the log file. Always one line."""
    if isinstance(exc, WorkbenchError) and not isinstance(exc, MachineFault):
        return str(exc)
    line = describe(exc)
    if line is None:
        first = (str(exc).splitlines() or [""])[0].strip()
        line = f"Unexpected error: {type(exc).__name__}: {first}" if first else f"Unexpected error: {type(exc).__name__}"
    return with_hint(" ".join(line.split()))


def as_fault(exc: BaseException, file: Any = None, then: str = "") -> MachineFault | None:
    """``exc`` as a ``MachineFault`` (its line, then ``then``: what was kept, how to go on), or None when it
    is not a fault of the machine."""
    if isinstance(exc, WorkbenchError):
        return None
    line = describe(exc, file)
    if line is None:
        return None
    return MachineFault(f"{line}; {then}" if then else line)
