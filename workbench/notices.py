"""One-line notices from deep inside the core for whoever shows things to the user.

Something the user must hear about but that is not an error (a damaged run store set aside, a store
opened read-only) is ``announce``d here. The entry point decides where it goes: the CLI sets a handler
that prints it on stderr (``set_notice_handler``); the window takes the lines announced while it
started (``take_notices``) and shows them in its message bar. Each line also goes to the log file.
Kept light: the CLI imports it at start.
"""

from __future__ import annotations

import logging
from typing import Callable

log = logging.getLogger(__name__)

_handler: dict[str, Callable[[str], None] | None] = {"fn": None}
_pending: list[str] = []


def set_notice_handler(fn: Callable[[str], None] | None) -> None:
    """Where notices go from now on (None: kept for ``take_notices``); kept ones are handed over at once."""
    _handler["fn"] = fn
    if fn is not None:
        while _pending:
            fn(_pending.pop(0))


def announce(line: str) -> None:
    """Tell the user ``line`` (once: the caller announces each event once)."""
    log.info("%s", line)
    fn = _handler["fn"]
    if fn is None:
        _pending.append(line)
    else:
        fn(line)


def take_notices() -> list[str]:
    """The lines announced while no handler was set, oldest first; they are not handed out again."""
    taken = list(_pending)
    _pending.clear()
    return taken
