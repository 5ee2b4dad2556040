"""The built-in studies, listed for the CLI and the Runs tab's Studies list."""

from __future__ import annotations

from typing import Any

from lm_workbench.studies.file import BUILTIN, builtin_names, read_json


def catalogue() -> list[dict[str, Any]]:
    """``[{name, title, description, scales, cells, source}]`` of each built-in study; ``cells``: how many a run
    at lecture scale runs (its sweeps and seeds expanded: a sweep-only study declares no cell of its own; the
    count once read "0 cells" for what-peft-trains' nine)."""
    out = []
    for name in builtin_names():
        path = BUILTIN / f"{name}.json"
        _, data = read_json(path)
        scales = list((data.get("scales") or {"lecture": {}}).keys())
        out.append({"name": name, "title": data.get("title") or name, "description": data.get("description") or "",
                    "scales": scales, "cells": _cells_at(path, "lecture" if "lecture" in scales else scales[0]),
                    "source": str(path)})
    return out


def _cells_at(path: Any, scale: str) -> int:
    from lm_workbench.studies.file import load_study

    return len(load_study(path, scale=scale).cells)
