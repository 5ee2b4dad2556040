"""The pre-training job through a real long-run lane: live metrics, cancel, and a hard crash.

Each run goes through ``LongRunLane`` (a spawned child process) or, for the
crash, through a separate "application" process that owns the lane, so
SIGKILL takes down both the window's side and the job, as a real crash does.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
from transformers import AutoTokenizer

from lm_workbench.engine.pretrain.architectures import ArchitectureSpec, build_config, build_model
from lm_workbench.engine.training.checkpoint import checkpoint_step, latest_checkpoint, load_checkpoint
from tests.support.pretrain_job_helpers import tiny_spec_dict, write_corpus
from lm_workbench.lanes.long_run_lane import LongRunLane
from lm_workbench.pretrain.runs import submit_pretrain
from lm_workbench.pretrain.spec import PretrainSpec
from lm_workbench.runs.kinds import run_kind
from lm_workbench.startup import recover_interrupted_runs
from lm_workbench.store import RunStore
from lm_workbench.paths import runs_db_path

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return write_corpus(tmp_path_factory.mktemp("pretrain-job") / "grammar.txt", n_documents=200, seed=1)


def wait_until(predicate, timeout=60.0, what="condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def long_spec(corpus, out_dir) -> PretrainSpec:
    """A gpt2 run far longer than the test waits for, logging and checkpointing often."""
    return PretrainSpec.from_dict(tiny_spec_dict("gpt2", corpus, out_dir, steps=100_000, log_every=1,
                                                 checkpoint_every=3, eval_every=0, warmup_steps=5))


def reload_checkpoint(out_dir: Path) -> tuple[int, torch.nn.Module]:
    """Build the run's model from its saved tokenizer and load the newest checkpoint into it."""
    path = latest_checkpoint(out_dir / "checkpoints")
    assert path is not None
    tokenizer = AutoTokenizer.from_pretrained(out_dir / "tokenizer")
    config = build_config(ArchitectureSpec("gpt2", "tiny", layers=2, hidden=64, max_positions=64), tokenizer)
    model = build_model(config, "causal-lm")
    before = model.transformer.wte.weight.detach().clone()
    loaded = load_checkpoint(path, model=model)
    assert loaded.step == checkpoint_step(path) >= 3
    assert not torch.equal(before, model.transformer.wte.weight)  # the weights really came from the file
    return loaded.step, model


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_job_logs_live_then_cancel_leaves_a_loadable_checkpoint(fresh_home, corpus, tmp_path):
    store_path = tmp_path / "runs.sqlite3"
    spec = long_spec(corpus, tmp_path / "run")
    with LongRunLane(store_path, kill_wait_s=2.0) as lane, RunStore(store_path) as store:
        run_id = submit_pretrain(lane, spec)
        row = store.get_run(run_id)
        assert (row["kind"], row["method"], row["params"]) == ("pretrain", "clm", spec.to_dict())
        assert row["cli_command"] == spec.cli_command() == run_kind("pretrain").cli_command(row["params"])
        wait_until(lambda: len(store.metrics(run_id, "loss")) >= 8, what="8 logged steps")
        names = set(store.metric_names(run_id))
        assert {"loss", "lr", "grad_norm", "tokens_per_s", "validation_loss", "perplexity"} <= names
        first_beat = store.get_run(run_id)["heartbeat_at"]
        wait_until(lambda: store.get_run(run_id)["heartbeat_at"] > first_beat, timeout=10, what="a heartbeat")
        assert store.get_run(run_id)["status"] == "running" and store.get_run(run_id)["pid"] != os.getpid()
        steps = [m["step"] for m in store.metrics(run_id, "loss")]
        assert steps == sorted(steps) and len(set(steps)) == len(steps)

        assert lane.cancel(run_id, grace_s=60.0)
        assert lane.wait(run_id, 90) == "cancelled"
        assert store.get_run(run_id)["error"] is None  # stopped by itself, not terminated
        checkpoints = [a for a in store.artifacts(run_id) if a["kind"] == "checkpoint"]
        assert checkpoints
    step, _ = reload_checkpoint(tmp_path / "run")
    assert Path(checkpoints[-1]["path"]).name == latest_checkpoint(tmp_path / "run" / "checkpoints").name
    assert step >= max(steps)


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_sigkill_of_app_and_job_leaves_a_sound_store_an_interrupted_run_and_a_checkpoint(fresh_home, corpus, tmp_path):
    store_path = runs_db_path()  # where lm_workbench.startup looks
    store_path.parent.mkdir(parents=True, exist_ok=True)
    out_dir = tmp_path / "run"
    spec = long_spec(corpus, out_dir)
    app = subprocess.Popen([sys.executable, "-m", "tests.support.pretrain_job_helpers", str(store_path),
                            json.dumps(spec.to_dict())], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                           env=os.environ | {"LM_WORKBENCH_HOME": str(fresh_home)})
    child = None
    try:
        run_id = int(app.stdout.readline())
        with RunStore(store_path) as store:
            wait_until(lambda: latest_checkpoint(out_dir / "checkpoints") is not None
                       and len(store.metrics(run_id, "loss")) >= 7, what="a checkpoint")
            child = store.get_run(run_id)["pid"]
        os.kill(app.pid, signal.SIGKILL)  # the window dies first, so nobody records the job's end...
        app.wait(10)
        os.kill(child, signal.SIGKILL)  # ...then the job, mid-step (it writes metrics every step)
        wait_until(lambda: not _alive(child), timeout=10, what="the child to die")
    finally:
        for pid in (app.pid, child):
            if pid and _alive(pid):
                os.kill(pid, signal.SIGKILL)

    conn = sqlite3.connect(store_path)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    with RunStore(store_path) as store:
        assert store.status(run_id) == "running"  # nobody knows yet
    assert recover_interrupted_runs(stale_after_s=60.0) == []  # a fresh heartbeat: too early to tell
    time.sleep(1.2)
    assert recover_interrupted_runs(stale_after_s=1.0) == [run_id]  # what the next start does (30 s there)
    with RunStore(store_path) as store:
        run = store.get_run(run_id)
        assert run["status"] == "interrupted" and f"process {child} vanished" in run["error"]
    reload_checkpoint(out_dir)


def _alive(pid: int) -> bool:
    try:
        waited, _ = os.waitpid(pid, os.WNOHANG)
        if waited == pid:
            return False
    except ChildProcessError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False
