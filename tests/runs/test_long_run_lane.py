"""The long-run lane: child processes, FIFO queue, cancel, crashes."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

import pytest

from lm_workbench.engine.errors import Cancelled
from lm_workbench.lanes.long_run_lane import LongRunLane
from lm_workbench.runs.run_context import HeartbeatThread, RunContext, resolve_target
from lm_workbench.store import RunStore

JOBS = "tests.support.lane_jobs"


@pytest.fixture
def lane(tmp_path, fresh_home):
    lane = LongRunLane(tmp_path / "runs.sqlite3", kill_wait_s=1.0)
    yield lane
    lane.shutdown(cancel_running=True, grace_s=0.5)


@pytest.fixture
def store(lane):
    s = RunStore(lane.store_path)
    yield s
    s.close()


def wait_until(predicate, timeout=20.0, what="condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.mark.timeout(60)
def test_job_logs_metrics_and_finishes(lane, store):
    run_id = lane.submit(f"{JOBS}:log_steps", {"n": 4}, kind="pre-train", name="tiny",
                         model="m", method="mlm", cli_command="lm-workbench pretrain")
    assert store.get_run(run_id)["params"] == {"n": 4}
    assert lane.wait(run_id, 30) == "finished"
    run = store.get_run(run_id)
    assert (run["kind"], run["name"], run["method"], run["error"]) == ("pre-train", "tiny", "mlm", None)
    assert run["pid"] not in (None, os.getpid()) and run["started_at"] <= run["finished_at"]
    assert [m["value"] for m in store.metrics(run_id, "loss")] == [1.0, 0.5, 1 / 3, 0.25]
    assert store.metrics(run_id, "torch_loaded")[0]["value"] == 0.0  # the child stays light
    assert store.artifacts(run_id)[0]["kind"] == "checkpoint"
    assert lane.status(run_id) == "finished" and lane.running_run_id is None


@pytest.mark.timeout(60)
def test_failing_job_is_marked_failed_with_message(lane, store):
    run_id = lane.submit(f"{JOBS}:boom", {"message": "bad batch"}, kind="fine-tune")
    bad_target = lane.submit(f"{JOBS}:no_such_job", {}, kind="probe")
    assert lane.wait(run_id, 30) == "failed"
    assert store.get_run(run_id)["error"] == "ValueError: bad batch"
    assert len(store.metrics(run_id, "loss")) == 1
    assert lane.wait(bad_target, 30) == "failed"
    assert store.get_run(bad_target)["error"].startswith("AttributeError")


@pytest.mark.timeout(60)
def test_cooperative_cancel(lane, store):
    run_id = lane.submit(f"{JOBS}:cooperative", {}, kind="pre-train")
    wait_until(lambda: store.metrics(run_id, "alive"), what="the job to start")
    start = time.monotonic()
    assert lane.cancel(run_id, grace_s=20.0)
    assert lane.wait(run_id, 30) == "cancelled"
    assert time.monotonic() - start < 10  # it stopped by itself, long before the grace
    assert store.get_run(run_id)["error"] is None


@pytest.mark.timeout(60)
@pytest.mark.parametrize("ignore_sigterm", [False, True])
def test_job_ignoring_cancel_is_terminated_after_grace(lane, store, ignore_sigterm):
    if ignore_sigterm and sys.platform == "win32":
        pytest.skip("no SIGTERM on Windows")
    run_id = lane.submit(f"{JOBS}:stubborn", {"ignore_sigterm": ignore_sigterm}, kind="probe")
    wait_until(lambda: store.metrics(run_id, "alive"), what="the job to start")
    start = time.monotonic()
    lane.cancel(run_id, grace_s=0.5)
    assert lane.status(run_id) == "running"  # cancel does not block
    assert lane.wait(run_id, 30) == "cancelled"
    assert time.monotonic() - start >= 0.5
    error = store.get_run(run_id)["error"]
    assert "terminated" in error
    if sys.platform != "win32":
        assert ("SIGKILL" if ignore_sigterm else "SIGTERM") in error


@pytest.mark.timeout(60)
@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_child_killed_mid_run_is_marked_failed(lane, store):
    run_id = lane.submit(f"{JOBS}:stubborn", {}, kind="pre-train")
    wait_until(lambda: store.metrics(run_id, "alive"), what="the job to start")
    os.kill(store.get_run(run_id)["pid"], signal.SIGKILL)
    assert lane.wait(run_id, 30) == "failed"
    error = store.get_run(run_id)["error"]
    assert "-9" in error and "SIGKILL" in error


@pytest.mark.timeout(60)
def test_queue_runs_fifo_one_at_a_time(lane, store):
    ids = [lane.submit(f"{JOBS}:sleep_for", {"seconds": 0.3}, kind="probe", name=str(i))
           for i in range(4)]
    assert store.status(ids[3]) == "queued"
    assert lane.cancel(ids[2])  # a queued run is dropped at once
    assert store.status(ids[2]) == "cancelled"
    for run_id in ids:
        lane.wait(run_id, 30)
    runs = [store.get_run(r) for r in ids]
    assert [r["status"] for r in runs] == ["finished", "finished", "cancelled", "finished"]
    assert runs[2]["started_at"] is None
    ran = [runs[0], runs[1], runs[3]]
    for earlier, later in zip(ran, ran[1:]):
        assert earlier["finished_at"] <= later["started_at"]  # never two at once
    assert len({r["pid"] for r in ran}) == 3  # a fresh process each


@pytest.mark.timeout(60)
def test_shutdown_cancels_queued_and_running(tmp_path):
    lane = LongRunLane(tmp_path / "runs.sqlite3")
    first = lane.submit(f"{JOBS}:cooperative", {}, kind="probe")
    second = lane.submit(f"{JOBS}:log_steps", {}, kind="probe")
    with RunStore(tmp_path / "runs.sqlite3") as store:
        wait_until(lambda: store.metrics(first, "alive"), what="the first job to start")
        lane.shutdown(cancel_running=True, grace_s=5.0)
        assert lane.running_run_id is None
        assert store.status(first) == "cancelled" and store.status(second) == "cancelled"
        assert store.get_run(second)["started_at"] is None
    with pytest.raises(RuntimeError):
        lane.submit(f"{JOBS}:log_steps", {}, kind="probe")


def test_submit_validates_target_and_arguments(lane):
    with pytest.raises(ValueError):
        lane.submit("tests.support.lane_jobs.log_steps", {}, kind="probe")
    with pytest.raises(TypeError):
        lane.submit(f"{JOBS}:log_steps", {"f": lambda: 1}, kind="probe")
    assert resolve_target(f"{JOBS}:log_steps").__name__ == "log_steps"


def test_run_context_in_process(tmp_path):
    with RunStore(tmp_path / "r.sqlite3") as store:
        run_id = store.create_run("probe", params={}, status="running")
        event = threading.Event()
        ctx = RunContext(run_id, store, event)
        ctx.log(3, loss=0.5)
        ctx.log_dict(3, {"loss/val": 0.75})
        assert store.metric_names(run_id) == ["loss", "loss/val"]
        assert not ctx.cancelled
        ctx.check_cancel()
        event.set()
        assert ctx.cancelled
        with pytest.raises(Cancelled):
            ctx.check()
        beat = HeartbeatThread(store, run_id, interval=0.02)
        beat.start()
        wait_until(lambda: store.get_run(run_id)["heartbeat_at"] is not None, 5, "a heartbeat")
        beat.stop()
        assert not beat.is_alive()
