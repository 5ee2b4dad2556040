"""User-facing errors.

Every failure a user can cause (bad input, a missing model, no memory) is a
``WorkbenchError`` whose message is one line that says what is wrong and,
where possible, what to do. The CLI prints it and exits 2; the window shows it.
A fault of the machine rather than of the input (a full disk, a folder that
cannot be written, a file that vanished) is a ``MachineFault``: the CLI exits 1.
Anything else is a bug and keeps its traceback (in the log file).
"""

from __future__ import annotations

import errno
import os
import re
from typing import Callable, TypeVar

T = TypeVar("T")


class WorkbenchError(Exception):
    """A problem with the user's input or environment, explained in one line."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:  # one line, always
        return " ".join(self.message.split())


class MachineFault(WorkbenchError):
    """The machine, not the input: no space, no permission, a vanished or damaged file. The CLI exits 1."""


class EmptyTextError(WorkbenchError):
    pass


class TextEncodingError(WorkbenchError):
    """A file that is not valid UTF-8."""


class ModelNotFoundError(WorkbenchError):
    """A folder that does not exist, or a hub id that is neither cached nor reachable."""


class ModelFormatError(WorkbenchError):
    """A folder without a config, an unknown family, or corrupt weights."""


class InsufficientMemoryError(WorkbenchError):
    pass


class MissingHeadError(WorkbenchError):
    """The model lacks the head a view needs (e.g. MiniLM has no MLM head)."""


class Cancelled(Exception):
    """Raised inside a job when its cancel token is set. Not an error."""


_OS_CODE = re.compile(r"(?:\bcode:\s*|os error\s+)(\d+)")


def _speaks_for_the_os(exc: BaseException) -> bool:
    """A safetensors error, or the plain ``Exception`` the tokenizers library raises."""
    return type(exc).__name__ == "SafetensorError" or type(exc) is Exception


def os_error_in(exc: BaseException, filename: str | os.PathLike | None) -> OSError | None:
    """The ``OSError`` inside a safetensors or tokenizers error (their text carries ``Os { code: 28, ... }``
    or ``(os error 28)``), naming ``filename``; None when the error was not the operating system's."""
    if not _speaks_for_the_os(exc):
        return None
    text = str(exc)
    match = _OS_CODE.search(text)
    if match is not None:
        code = int(match.group(1))
    elif "No space left" in text:
        code = errno.ENOSPC
    else:
        return None
    return OSError(code, os.strerror(code), str(filename) if filename else None)


def written(file: str | os.PathLike, write: Callable[[], T]) -> T:
    """``write()``, whose failure to write ``file`` is raised as an ``OSError`` that names it: an ``OSError``
    without a file name (``write`` calls have none), or a safetensors / tokenizers error from the system."""
    try:
        return write()
    except OSError as exc:
        if exc.filename is None and exc.errno is not None:
            raise OSError(exc.errno, exc.strerror, str(file)) from None
        raise
    except Exception as exc:
        os_error = os_error_in(exc, file)
        if os_error is None:
            raise
        raise os_error from None
