"""A process killed (SIGKILL, as the window is when the machine runs out of memory or the user kills it) while it
saves a workspace: the workspace file as it was before is whole and opens; only the temporary file is half done."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from lm_workbench.workspace.format import Workspace, open_workspace, save_workspace

ROOT = Path(__file__).resolve().parents[2]


def test_a_process_killed_mid_save_leaves_the_old_workspace_whole(tmp_path):
    path = tmp_path / "lecture.lmw"
    save_workspace(Workspace(model="minilm", text="the lecture as saved", current_view="tokens",
                             views={"tokens": {"settings": {"colour": "segment"}}}), path)
    before = path.read_bytes()
    tmp = path.with_name(f".{path.name}.tmp")
    child = subprocess.Popen([sys.executable, "-m", "tests.support.workspace_saver", str(path)], cwd=ROOT)
    try:
        deadline = time.monotonic() + 30
        while not (tmp.exists() and tmp.stat().st_size > 0):  # the first save is under way
            assert child.poll() is None and time.monotonic() < deadline
            time.sleep(0.002)
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == -signal.SIGKILL
    assert tmp.exists()  # killed mid-save: the half-written file is the temporary one
    assert path.read_bytes() == before
    opened = open_workspace(path)
    assert opened.problems == [] and opened.text == "the lecture as saved"
    assert opened.views["tokens"]["settings"] == {"colour": "segment"}
