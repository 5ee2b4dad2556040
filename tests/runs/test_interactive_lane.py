"""The interactive lane: one job at a time, the newest cancels the stale one."""

from __future__ import annotations

import threading
import time

import pytest

from lm_workbench.engine.errors import EmptyTextError
from lm_workbench.engine.progress import Partial, Progress
from lm_workbench.lanes.interactive import InteractiveLane, JobState


@pytest.fixture
def lane():
    lane = InteractiveLane(name="test-lane")
    yield lane
    assert lane.shutdown(timeout=10)


def slow_job(steps, delay, started=None):
    def fn(cancel):
        if started is not None:
            started.set()
        for i in range(steps):
            cancel.check()
            time.sleep(delay)
            yield Progress(i + 1, steps, f"step {i + 1}")
            yield Partial(i)
        return "finished"

    return fn


def test_progress_partials_and_result_arrive_in_order(lane):
    events = []
    job = lane.submit(slow_job(3, 0.0), name="count",
                      on_progress=lambda p: events.append(("progress", p.done)),
                      on_partial=lambda v: events.append(("partial", v)),
                      on_done=lambda v: events.append(("done", v)))
    assert job.wait(5)
    assert job.state is JobState.DONE and job.result == "finished"
    assert events == [("progress", 1), ("partial", 0), ("progress", 2), ("partial", 1),
                      ("progress", 3), ("partial", 2), ("done", "finished")]


def test_new_submission_cancels_the_running_one(lane):
    started = threading.Event()
    cancelled = threading.Event()
    first = lane.submit(slow_job(1000, 0.01, started), name="stale", on_cancelled=cancelled.set)
    assert started.wait(5)
    second = lane.submit(lambda cancel: 42, name="fresh")
    assert second.wait(5) and second.result == 42
    assert first.wait(5) and first.state is JobState.CANCELLED and cancelled.is_set()


def test_a_kept_job_is_waited_for_not_cancelled_and_stops_when_asked(lane):
    """A view's own long job (training the tuned lens) keeps running when the window asks for more (typing: the
    tokenizing); the newest request waits behind it, an older waiting one is replaced; cancel(job) stops it."""
    started = threading.Event()
    kept = lane.submit(slow_job(1000, 0.01, started), name="training", keep=True)
    assert started.wait(5)
    older = lane.submit(lambda cancel: "older", name="tokenize")
    newer = lane.submit(lambda cancel: "newer", name="tokenize")
    assert older.wait(5) and older.state is JobState.CANCELLED  # replaced while waiting, never run
    time.sleep(0.1)
    assert kept.state is JobState.RUNNING and newer.state is JobState.PENDING
    lane.cancel(kept)
    assert kept.wait(5) and kept.state is JobState.CANCELLED
    assert newer.wait(5) and newer.result == "newer"  # it ran once the kept job ended


def test_waiting_job_is_replaced_not_run(lane):
    started = threading.Event()
    release = threading.Event()
    ran = []

    def blocker(cancel):
        started.set()
        release.wait(5)
        return "blocker"

    lane.submit(blocker, name="blocker")
    assert started.wait(5)
    middle = lane.submit(lambda t: ran.append("middle"), name="middle")
    last = lane.submit(lambda t: ran.append("last"), name="last")
    release.set()
    assert last.wait(5) and middle.wait(5)
    assert ran == ["last"]
    assert middle.state is JobState.CANCELLED


def test_user_errors_and_bugs_are_reported_not_raised(lane):
    errors = []
    job = lane.submit(lambda t: (_ for _ in ()).throw(EmptyTextError("the text is empty")),
                      on_error=lambda e, tb: errors.append((type(e).__name__, tb)))
    assert job.wait(5) and job.state is JobState.FAILED
    bug = lane.submit(lambda t: 1 / 0, on_error=lambda e, tb: errors.append((type(e).__name__, tb)))
    assert bug.wait(5)
    assert errors[0] == ("EmptyTextError", "")  # a user error carries no traceback
    assert errors[1][0] == "ZeroDivisionError" and "Traceback" in errors[1][1]
    # the lane survives both
    assert lane.submit(lambda t: "alive").wait(5)


def test_jobs_run_off_the_calling_thread(lane):
    seen = []
    job = lane.submit(lambda t: seen.append(threading.current_thread().name))
    assert job.wait(5)
    assert seen == ["test-lane"]


def test_cancel_current_and_shutdown_stop_a_long_job():
    lane = InteractiveLane(name="test-lane-2")
    started = threading.Event()
    job = lane.submit(slow_job(10_000, 0.01, started))
    assert started.wait(5)
    lane.cancel_current()
    assert job.wait(5) and job.state is JobState.CANCELLED
    lane.submit(slow_job(10_000, 0.01))
    t0 = time.monotonic()
    assert lane.shutdown(timeout=5)
    assert time.monotonic() - t0 < 2


def test_encoding_cancels_between_batches(lane, minilm):
    from lm_workbench.engine.analysis import encode_texts

    progress = []
    texts = [f"Sentence number {i} about banks and rivers." for i in range(400)]
    job = lane.submit(lambda cancel: encode_texts(minilm, texts, attentions=False, cancel=cancel),
                      on_progress=lambda p: progress.append(p.done))
    deadline = time.monotonic() + 30
    while not any(progress) and time.monotonic() < deadline:
        time.sleep(0.005)
    job.cancel()
    assert job.wait(30)
    assert job.state is JobState.CANCELLED
    assert max(progress) < len(texts)


def test_model_load_freezes_its_objects_for_the_collector(tiny_models):
    """After a load (and the window's settle_heap) the model's objects are frozen, so a later full GC cannot stall the window."""
    import gc

    from lm_workbench.engine.progress import NEVER_CANCELLED, run_to_completion
    from lm_workbench.models.view_tasks import settle_heap
    from lm_workbench.models.loader import load_model_job
    from lm_workbench.settings import Settings

    gc.unfreeze()
    try:
        run_to_completion(load_model_job(str(tiny_models["gpt2"]), Settings(), NEVER_CANCELLED))
        settle_heap()  # what the window does on its own thread once the load has returned
        assert gc.get_freeze_count() > 10_000
        tracked = len(gc.get_objects())
        assert tracked < gc.get_freeze_count()  # what is left for a collection is the small part
    finally:
        gc.unfreeze()
