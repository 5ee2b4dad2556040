"""Playing a lecture preset in a test window: step to a step and wait until it shows, and course models
installed from the tiny ones (tests/lectures)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable

WAIT = 30000


def settled(window: Any) -> bool:
    return not window.jobs.busy and not window.text_input.pending() and not window.loading


def step_to(qtbot: Any, window: Any, index: int, shown: Callable[[], bool]) -> float:
    """Go to step ``index`` (by the runner) and wait until ``shown()``; the seconds it took."""
    start = time.monotonic()
    if window.lectures.runner.index != index:
        assert window.lectures.runner.go(index)
    qtbot.waitUntil(lambda: settled(window) and shown(), timeout=WAIT)
    return time.monotonic() - start


def current(window: Any) -> str:
    return window.view_host.current_entry().id


def install_course_models(tiny_models: Any, monkeypatch: Any, tmp_path: Path,
                          families: tuple[str, ...] = ("bert", "gpt2")) -> Path:
    """The tiny models of ``families`` installed as this machine's course models in a fresh home, and an
    empty hub cache (presets that prefer a larger cached model fall back to the course models); the home."""
    import shutil

    from huggingface_hub import constants

    home = tmp_path / "home"
    monkeypatch.setenv("LM_WORKBENCH_HOME", str(home))
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "empty-hub-cache"))
    for family in families:
        shutil.copytree(tiny_models[family], home / "data" / "course-models" / family / "model")
    return home
