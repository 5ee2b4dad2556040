"""Downloads from a hub: the real ``huggingface_hub`` client against a hub-compatible server on 127.0.0.1.

Nothing contacts the real hub: ``tests.support.hub_server`` serves tiny GPT-2 folders the test builds, and
the scenarios run in a child process (``tests.support.hub_download_scenarios``) whose ``HF_ENDPOINT`` names
that server. What a user would see is checked: the size before any byte, progress that adds up to it, a
cancel that leaves no complete-looking cache entry and resumes with a ``Range`` request, a dropped
connection that resumes, and one line for a missing repository, a gated one, a missing revision and
pickle-only weights.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.hub_server import HubServer, ServedRepo
from tests.support.tiny_models import build_tiny_model

ROOT = Path(__file__).resolve().parents[2]
SHA = {"course/tiny": "a" * 40, "course/slow": "b" * 40, "course/flaky": "c" * 40}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """(what the scenarios saw, the server's request log, the served files)."""
    root = tmp_path_factory.mktemp("hub")
    folder = build_tiny_model("gpt2", root / "tiny")
    files = ServedRepo.from_folder(folder, sha="0" * 40).files
    weights = len(files["model.safetensors"])
    pickled = {("pytorch_model.bin" if k == "model.safetensors" else k): v for k, v in files.items()}
    repos = {
        "course/tiny": ServedRepo(dict(files), sha=SHA["course/tiny"]),
        "course/slow": ServedRepo(dict(files), sha=SHA["course/slow"], chunk_delay_s=0.15),
        "course/flaky": ServedRepo(dict(files), sha=SHA["course/flaky"]),
        "course/gated": ServedRepo(dict(files), sha="d" * 40, gated=True),
        "course/pickled": ServedRepo(pickled, sha="e" * 40),
    }
    cut = weights // 3
    with HubServer(repos=repos, drop_after={"course/flaky/model.safetensors": cut}) as hub:
        env = {k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}
        env.update(HF_ENDPOINT=hub.url, HF_HOME=str(root / "hf-home"), PYTHONPATH=str(ROOT),
                   LM_WORKBENCH_HOME=str(root / "home"), HF_HUB_DISABLE_TELEMETRY="1")
        done = subprocess.run([sys.executable, str(ROOT / "tests" / "support" / "hub_download_scenarios.py")],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    return seen, hub, files, cut


def test_the_size_comes_first_and_progress_adds_up_to_it(served):
    seen, _hub, files, _ = served
    load = seen["load"]
    assert seen["cached_before"] is False and load["cached_after"] is True
    fetched = sum(len(v) for v in files.values())  # every file of the tiny model is one the workbench fetches
    first = next(m for m in load["messages"] if m.startswith("downloading course/tiny"))
    assert f"{len(files)} files" in first
    byte_events = [d for d, m in zip(load["done"], load["messages"]) if m.startswith("downloading")]
    assert byte_events == sorted(byte_events) and byte_events[-1] == fetched
    assert fetched in load["totals"]
    assert any("MB/s" in m and f"{len(files)}/{len(files)} files" in m for m in load["messages"])
    assert load["family"] == "decoder" and load["source"] == "hub"  # downloaded by this load


def test_a_cancel_leaves_no_complete_looking_entry_and_the_next_try_resumes(served):
    seen, hub, files, _ = served
    cancel = seen["cancel"]
    assert cancel["cancelled_at"] and cancel["snapshot"] is False  # nothing that looks like a model
    assert cancel["incomplete"] and cancel["incomplete"][0] > 0  # the partly fetched weights, kept
    kept = cancel["incomplete"][0]
    assert f"bytes={kept}-" in hub.ranges_for("course/slow", "model.safetensors")  # asked for the rest only
    assert cancel["incomplete_after"] == []
    assert cancel["sha"]["model.safetensors"] == hashlib.sha256(files["model.safetensors"]).hexdigest()


def test_a_dropped_connection_resumes_where_it_stopped(served):
    seen, hub, files, cut = served
    assert hub.ranges_for("course/flaky", "model.safetensors") == [f"bytes={cut}-"]
    assert seen["flaky"]["sha"] == {k: hashlib.sha256(v).hexdigest() for k, v in files.items()}
    assert seen["flaky"]["last_done"] == seen["flaky"]["plan_bytes"]


@pytest.mark.parametrize("case, words", [
    ("missing", ["not on the hub", "check the id"]),
    ("gated", ["gated", "accept its licence", "HF_TOKEN", "hf auth login"]),
    ("revision", ["no revision 'v9.9'", "branch, tag or commit"]),
    ("pickle", ["only pickle weights", "--allow-pickle"]),
])
def test_each_failure_is_one_line_that_says_what_to_do(served, case, words):
    line = served[0]["errors"][case]
    assert line is not None and "\n" not in line
    assert all(w in line for w in words), line


def test_the_download_command(served):
    seen = served[0]
    cli = seen["cli"]
    assert cli["code"] == 0, cli["stderr"]
    summary = json.loads(cli["stdout"])
    assert summary["commit"] == SHA["course/flaky"] and summary["files"] == 5
    assert Path(summary["folder"]).name == SHA["course/flaky"]
    assert cli["stderr"] == ""  # --json and no terminal: quiet
    missing = seen["cli_missing"]
    assert missing["code"] == 2 and missing["stderr"].count("\n") == 1 and "check the id" in missing["stderr"]
    assert seen["threads"] == []  # every download thread ended
