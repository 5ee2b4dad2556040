"""The built-in demo: 32 short passages on everyday science, money, sport, food and computing, with 12
queries that say the same things in other words (graded qrels: 2 the answer, 1 related), in BEIR's folder
layout, so a search and the metrics table work without a file."""

from __future__ import annotations

from pathlib import Path

DEMO = "demo"


def demo_folder() -> Path:
    return Path(__file__).parent / "data" / "demo"
