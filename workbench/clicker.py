"""Next and Previous, as presentation clickers send them (PageDown / PageUp), for whatever steps.

Qt-free: the window owns one ``Clicker`` and turns its Next/Previous
actions (View menu; PageDown/PageUp) into ``next()`` and ``previous()``. Anything that can step — a lecture preset, the attention
step-by-step panel — is a ``ClickTarget`` (``next()`` and ``previous()``, each
returning whether it moved) and ``push``es itself while it wants the keys;
the most recently pushed one gets them, and ``remove`` hands them back to
the one before. When the one on top cannot move (it is at its last or first
step), the key falls through to the one pushed before it: a lecture whose step
opened the attention step-by-step panel steps through the panel, then on to
the lecture's next step. With nothing pushed, Next and Previous do nothing (the
window disables its two actions, so PageDown/PageUp stay with the widgets).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from lm_workbench.observable import EventGroup


@runtime_checkable
class ClickTarget(Protocol):
    def next(self) -> bool: ...

    def previous(self) -> bool: ...


class Clicker:
    """The window's one Next/Previous: forwards to the stepper pushed last (see the module docstring).

    Events: ``changed()`` when the active stepper changes; ``stepped(direction, moved)`` after each
    ``next()`` (+1) or ``previous()`` (-1) that reached a stepper.
    """

    def __init__(self) -> None:
        self._stack: list[ClickTarget] = []
        self.events = EventGroup("changed", "stepped")

    def push(self, stepper: ClickTarget) -> None:
        """Give Next/Previous to ``stepper`` (moved to the top if it is already in)."""
        if not isinstance(stepper, ClickTarget):
            raise TypeError(f"{type(stepper).__name__} has no next() and previous()")
        if self._stack and self._stack[-1] is stepper:
            return
        self._stack = [s for s in self._stack if s is not stepper] + [stepper]
        self.events.changed.emit()

    def remove(self, stepper: ClickTarget) -> None:
        """Take ``stepper`` out (the one pushed before it gets the keys again); absent: nothing happens."""
        kept = [s for s in self._stack if s is not stepper]
        if len(kept) != len(self._stack):
            self._stack = kept
            self.events.changed.emit()

    def active(self) -> ClickTarget | None:
        return self._stack[-1] if self._stack else None

    def next(self) -> bool:
        return self._step(+1)

    def previous(self) -> bool:
        return self._step(-1)

    def _step(self, direction: int) -> bool:
        if not self._stack:
            return False
        moved = False
        for stepper in reversed(list(self._stack)):  # the top one first; one that cannot move passes it on
            moved = bool(stepper.next() if direction > 0 else stepper.previous())
            if moved:
                break
        self.events.stepped.emit(direction, moved)
        return moved
