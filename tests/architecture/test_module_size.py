"""The house rule "no module over ~600 lines" (brief: small files with one concern) as a check over every tracked
Python file, generated ones included (``scripts/generate_api.py`` writes one file per group of commands to stay
under it)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 600


def _tracked_python_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
        return [ROOT / name for name in out.split()]
    except (OSError, subprocess.CalledProcessError):  # an unpacked source tree without git
        folders = ("workbench", "engine", "ui", "plugins", "tests", "scripts", "packaging")
        return [p for f in folders for p in (ROOT / f).rglob("*.py") if "dist" not in p.parts and "build" not in p.parts]


def _too_long(paths: list[Path], root: Path = ROOT) -> list[str]:
    long = []
    for path in paths:
        if path.is_file():
            count = len(path.read_text(encoding="utf-8").splitlines())
            if count > LIMIT:
                long.append(f"{path.relative_to(root)}: {count} lines")
    return long


def test_no_module_is_over_the_limit():
    assert not _too_long(_tracked_python_files()), f"split these by concern (limit {LIMIT} lines)"


def test_the_check_sees_a_long_module(tmp_path):
    path = tmp_path / "long.py"
    path.write_text("x = 1\n" * (LIMIT + 1), encoding="utf-8")
    assert _too_long([path], tmp_path) == [f"long.py: {LIMIT + 1} lines"]
    path.write_text("x = 1\n" * LIMIT, encoding="utf-8")
    assert _too_long([path], tmp_path) == []


@pytest.mark.parametrize("name", ["workbench/api/functions.py", "workbench/api/model_methods.py"])
def test_the_generated_api_files_are_among_those_checked(name):
    assert ROOT / name in _tracked_python_files()
