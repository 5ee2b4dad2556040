"""The cold-start probe (LM_WORKBENCH_STARTUP_PROBE) that packaging/startup_timing.sh reads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_the_probe_times_window_model_and_encoding_then_quits(tmp_path, tiny_models):
    env = dict(os.environ, LM_WORKBENCH_HOME=str(tmp_path / "home"), PYTHONPATH=str(ROOT),
               LM_WORKBENCH_STARTUP_PROBE=str(time.time()))
    done = subprocess.run([sys.executable, "-m", "lm_workbench", "gui", str(tiny_models["bert"])], env=env, cwd=tmp_path, capture_output=True,
                          text=True, timeout=280)
    assert done.returncode == 0, done.stderr[-2000:]
    marks = json.loads(done.stdout.strip().splitlines()[-1])
    assert list(marks) == ["window_shown_s", "tokens_shown_s", "encoded_s"]
    assert 0 < marks["window_shown_s"] < marks["tokens_shown_s"] <= marks["encoded_s"] < 280
