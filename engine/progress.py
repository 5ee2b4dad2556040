"""Progress reports and cooperative cancellation for long computations.

Compute functions are generators: they ``yield Progress(...)`` between units
of work (and may yield partial results), and call ``cancel.check()`` so a
cancel takes effect at the next step. This is the superqt generator-worker
pattern without any Qt: the job lanes in ``workbench`` drive the generators.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Callable, Generator, Iterator, TypeVar

from lm_workbench.engine.errors import Cancelled

T = TypeVar("T")


@dataclass(frozen=True)
class Progress:
    done: int
    total: int
    message: str = ""

    @property
    def fraction(self) -> float:
        return 0.0 if self.total <= 0 else min(1.0, self.done / self.total)


@dataclass(frozen=True)
class Partial:
    """A partial result a job yields on the way (e.g. one encoded batch)."""

    value: Any


class CancelToken:
    """A thread-safe flag; ``check()`` raises ``Cancelled`` once it is set."""

    def __init__(self, event: Any = None) -> None:
        """``event``: a ``threading.Event`` (or anything with ``is_set`` and ``set``) another side sets, e.g. a lane's
        cancel event; a new one when None."""
        self._event = threading.Event() if event is None else event

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def check(self) -> None:
        if self._event.is_set():
            raise Cancelled()


NEVER_CANCELLED = CancelToken()


def drive(gen: Generator[Any, None, T], on_event: Callable[[Any], None] | None = None, *,
          cancel: CancelToken | None = None) -> T:
    """Run a job generator to its end and return its value: the one way to drive one by hand.

    Each item it yields (``Progress``, ``Partial`` or a job's own events) goes to ``on_event``; ``cancel`` is
    checked before every step, so a cancel takes effect between two yields even in a generator that never
    checks; the generator is closed however this ends.
    """
    try:
        while True:
            if cancel is not None:
                cancel.check()
            try:
                item = next(gen)
            except StopIteration as stop:
                return stop.value
            if on_event is not None:
                on_event(item)
    finally:
        gen.close()


def relay(gen: Generator[Any, None, T], transform: Callable[[Any], Any]) -> Generator[Any, None, T]:
    """Re-yield a job generator's items through ``transform`` and return the generator's value: for a job that
    runs another and reports its steps in its own terms.

    An item ``transform`` maps to None is dropped; when it returns a generator (``transform`` is itself a
    generator function), that generator's items are yielded in turn, so one step can report, do slow work
    between its reports, and pass several items on.
    """
    try:
        while True:
            try:
                item = next(gen)
            except StopIteration as stop:
                return stop.value
            out = transform(item)
            if isinstance(out, Generator):
                yield from out
            elif out is not None:
                yield out
    finally:
        gen.close()


def run_to_completion(gen: Generator[Any, None, T]) -> T:
    """Drive a job generator without a UI: ignore progress, return its value."""
    return drive(gen)


def iter_with_progress(gen: Generator[Any, None, T]) -> Iterator[Any]:
    """Yield every report of a job generator; its return value is the last item."""
    value = yield from gen
    yield value
