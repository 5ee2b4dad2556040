"""The newest lane's list names files that exist (a renamed test file would silently leave the lane)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import NEWEST_LANE

ROOT = Path(__file__).resolve().parents[2]


def test_every_path_the_newest_lane_names_exists():
    missing = [path for path in NEWEST_LANE if not (ROOT / path).exists()]
    assert missing == []
    assert any(path.startswith("tests/finetune/") for path in NEWEST_LANE)  # the methods, not only the views
