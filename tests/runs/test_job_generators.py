"""lm_workbench.engine.progress's drive() and relay(): the one way a job generator is driven by hand."""

from __future__ import annotations

import pytest

from lm_workbench.engine.errors import Cancelled
from lm_workbench.engine.progress import CancelToken, Partial, Progress, drive, relay


def counting(n: int, closed: list[str]):
    """Yields Progress(i) and Partial(i) for i < n, returns "done"; notes in ``closed`` when it is closed early."""
    try:
        for i in range(n):
            yield Progress(i + 1, n, f"step {i + 1}")
            yield Partial(i)
        return "done"
    except GeneratorExit:
        closed.append("closed")
        raise


def test_drive_passes_every_item_on_and_returns_the_value():
    seen = []
    assert drive(counting(2, []), seen.append) == "done"
    assert seen == [Progress(1, 2, "step 1"), Partial(0), Progress(2, 2, "step 2"), Partial(1)]
    assert drive(counting(3, [])) == "done"  # no listener


def test_drive_checks_the_cancel_before_every_step_and_closes_the_generator():
    cancel, seen, closed = CancelToken(), [], []

    def listen(item):
        seen.append(item)
        if isinstance(item, Partial) and item.value == 0:
            cancel.cancel()

    with pytest.raises(Cancelled):
        drive(counting(5, closed), listen, cancel=cancel)
    assert seen == [Progress(1, 5, "step 1"), Partial(0)] and closed == ["closed"]


def test_relay_maps_drops_and_expands_items_and_returns_the_value():
    def transform(item):
        if isinstance(item, Partial):
            return None if item.value == 0 else Partial(10 * item.value)
        return (x for x in (item.message, item.done))  # a generator: each of its items goes on

    def job():
        value = yield from relay(counting(2, []), transform)
        return value.upper()

    seen = []
    assert drive(job(), seen.append) == "DONE"
    assert seen == ["step 1", 1, "step 2", 2, Partial(10)]


def test_closing_a_relay_closes_the_generator_it_relays():
    closed = []
    outer = relay(counting(5, closed), lambda item: item)
    assert next(outer) == Progress(1, 5, "step 1")
    outer.close()
    assert closed == ["closed"]
