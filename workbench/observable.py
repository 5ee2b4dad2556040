"""A tiny observer: named events a state object emits and views connect to.

Qt-free on purpose (``workbench`` never imports Qt): the state of a view lives
in a plain object that tests can drive without a window, and the widgets
subscribe with ``state.events.<name>.connect(callback)``. Callbacks run
synchronously on the thread that changed the state; the views only change it
on the Qt thread.
"""

from __future__ import annotations

import logging
from typing import Any, Callable

log = logging.getLogger(__name__)


class Event:
    """One kind of change; ``emit(*args)`` calls every connected callback in order."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._callbacks: list[Callable[..., Any]] = []

    def connect(self, callback: Callable[..., Any]) -> Callable[..., Any]:
        if callback not in self._callbacks:
            self._callbacks.append(callback)
        return callback

    def disconnect(self, callback: Callable[..., Any]) -> None:
        if callback in self._callbacks:
            self._callbacks.remove(callback)

    def emit(self, *args: Any) -> None:
        for callback in list(self._callbacks):
            callback(*args)

    def __len__(self) -> int:
        return len(self._callbacks)


class EventGroup:
    """The events of one state object, as attributes: ``group.corpus_changed.connect(f)``."""

    def __init__(self, *names: str) -> None:
        self._names = names
        for name in names:
            setattr(self, name, Event(name))

    def names(self) -> tuple[str, ...]:
        return self._names
