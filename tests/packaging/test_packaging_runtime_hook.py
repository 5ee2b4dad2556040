"""The bundle's runtime hook: offline by default, the user's settings and environment win; numba's cache
goes to the user's cache folder. Run the hook file in a fresh interpreter, as the bundle does first."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HOOK = ROOT / "packaging" / "runtime_hooks" / "offline_and_caches.py"
SHOW = ("import os, runpy, sys; runpy.run_path(sys.argv[1]); "
        "print(os.environ.get('HF_HUB_OFFLINE'), os.environ.get('TRANSFORMERS_OFFLINE'), os.environ['NUMBA_CACHE_DIR'])")


def run_hook(home: Path, settings: dict | None, **env: str) -> list[str]:
    if settings is not None:
        (home / "config").mkdir(parents=True, exist_ok=True)
        (home / "config" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    base = {k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "NUMBA_CACHE_DIR")}
    done = subprocess.run([sys.executable, "-c", SHOW, str(HOOK)], env=base | {"LM_WORKBENCH_HOME": str(home),
                          "PYTHONPATH": str(ROOT)} | env, capture_output=True, text=True, timeout=60, check=True)
    return done.stdout.split()


@pytest.mark.parametrize("settings, env, expected", [
    (None, {}, ["1", "1"]),                                       # no settings, no variable: offline
    ({"offline": None}, {"HF_HUB_OFFLINE": "0"}, ["0", "None"]),  # unset setting: the environment decides
    ({"offline": False}, {}, ["0", "0"]),                         # switched off in the settings
    ({"offline": True}, {"HF_HUB_OFFLINE": "0"}, ["1", "1"]),     # the setting beats the environment
])
def test_offline_mode_default_and_switches(tmp_path, settings, env, expected):
    offline, transformers_offline, numba_dir = run_hook(tmp_path, settings, **env)
    assert [offline, transformers_offline] == expected
    assert Path(numba_dir) == tmp_path / "cache" / "numba"


def test_an_explicit_numba_cache_is_kept(tmp_path):
    assert run_hook(tmp_path, None, NUMBA_CACHE_DIR=str(tmp_path / "mine"))[2] == str(tmp_path / "mine")
