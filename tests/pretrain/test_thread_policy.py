"""Idle OpenMP threads sleep instead of spinning (issue 48.3): importing the package sets OMP_WAIT_POLICY=PASSIVE
before torch is imported, unless the user set it."""

from __future__ import annotations

import os
import subprocess
import sys

CODE = ("import os, sys; import lm_workbench.engine.models.device as d; import torch; "
        "print(os.environ.get('OMP_WAIT_POLICY'), 'torch' in sys.modules)")


def _run(env: dict) -> str:
    result = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 0, result.stderr
    return result.stdout.split()[0]


def test_passive_by_default_and_the_users_choice_kept():
    base = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    assert _run(base) == "PASSIVE"
    assert _run({**base, "OMP_WAIT_POLICY": "ACTIVE"}) == "ACTIVE"


def test_the_policy_is_set_before_anything_imports_torch():
    """The package's __init__ runs before any of its modules: no torch in sys.modules when it sets the policy."""
    code = "import sys; import lm_workbench; print('torch' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.stdout.strip() == "False", result.stderr
