"""JobBridge: lane callbacks come back as GUI-thread calls, and the lane is joined."""

from __future__ import annotations

import threading

import pytest

from lm_workbench.engine.errors import ModelNotFoundError
from lm_workbench.engine.progress import Progress
from lm_workbench.ui.view_kit.job_bridge import JobBridge

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def bridge(qtbot):
    b = JobBridge()
    yield b
    assert b.shutdown()
    assert not b._lane.thread.is_alive()


def test_results_and_progress_arrive_on_the_gui_thread(bridge, qtbot):
    seen: dict = {"progress": []}
    busy: list[bool] = []
    bridge.busy_changed.connect(busy.append)

    def work(cancel):
        seen["worker"] = threading.current_thread()
        yield Progress(1, 2, "half")
        yield Progress(2, 2, "all")
        return 42

    def done(value):
        seen["value"], seen["done_thread"] = value, threading.current_thread()

    bridge.run(work, "work", done, on_progress=seen["progress"].append)
    assert bridge.busy and busy == [True]
    qtbot.waitUntil(lambda: busy == [True, False], timeout=5000)
    assert seen["value"] == 42
    assert seen["done_thread"] is threading.main_thread()
    assert seen["worker"] is not threading.main_thread()
    assert [p.done for p in seen["progress"]] == [1, 2]
    assert not bridge.busy


def test_errors_go_to_the_handler_or_the_error_signal(bridge, qtbot):
    errors: list = []

    def missing(cancel):
        raise ModelNotFoundError("model folder /x does not exist")

    bridge.run(missing, "load", lambda v: None, on_error=lambda exc, tb: errors.append((exc, tb)))
    qtbot.waitUntil(lambda: bool(errors), timeout=5000)
    assert isinstance(errors[0][0], ModelNotFoundError) and errors[0][1] == ""

    def bug(cancel):
        raise ZeroDivisionError("oops")

    with qtbot.waitSignal(bridge.error, timeout=5000) as signal:
        bridge.run(bug, "bug", lambda v: None)
    exc, tb, name = signal.args
    assert isinstance(exc, ZeroDivisionError) and "Traceback" in tb and name == "bug"


def test_a_new_job_cancels_the_running_one(bridge, qtbot):
    started = threading.Event()
    outcome: list[str] = []

    def stale(cancel):
        started.set()
        while True:
            cancel.check()
            started.wait(0.01)

    bridge.run(stale, "stale", lambda v: outcome.append("stale done"), on_cancelled=lambda: outcome.append("cancelled"))
    assert started.wait(5)
    bridge.run(lambda cancel: "fresh", "fresh", outcome.append)
    qtbot.waitUntil(lambda: not bridge.busy, timeout=5000)
    assert outcome == ["cancelled", "fresh"]


def test_cancel_and_shutdown(qtbot):
    bridge = JobBridge()
    cancelled: list[bool] = []

    def forever(cancel):
        while True:
            cancel.check()
            threading.Event().wait(0.01)

    bridge.run(forever, "forever", lambda v: None, on_cancelled=lambda: cancelled.append(True))
    bridge.cancel()
    qtbot.waitUntil(lambda: cancelled == [True] and not bridge.busy, timeout=5000)
    bridge.run(forever, "forever", lambda v: None)
    assert bridge.shutdown(timeout=5)  # cancels the running job and joins the thread
    assert not bridge._lane.thread.is_alive()
    with pytest.raises(RuntimeError):
        bridge.run(forever, "late", lambda v: None)


def test_a_job_whose_result_came_is_no_longer_current(bridge, qtbot):
    """The view host skips computing while the tokenizer runs ("its result will call back"); once the result
    has been delivered that wait is over, even though the lane's "finally" is a later event. (A tab chosen in
    between never computed: the Attention tab waited for a tokenizer that had finished.)"""
    seen: dict = {}

    def done(value):
        seen["during_done"] = bridge.current_name
        qtbot_ready.append(True)

    qtbot_ready: list[bool] = []
    bridge.run(lambda cancel: 1, "tokenize", done)
    assert bridge.current_name == "tokenize"  # running: current
    qtbot.waitUntil(lambda: bool(qtbot_ready), timeout=5000)
    assert seen["during_done"] is None
    qtbot.waitUntil(lambda: not bridge.busy, timeout=5000)
    assert bridge.current_name is None
