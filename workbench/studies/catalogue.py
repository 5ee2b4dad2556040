"""The built-in studies, listed for the CLI and the Runs tab's Studies list."""

from __future__ import annotations

from typing import Any

from lm_workbench.studies.file import BUILTIN, builtin_names, read_json


def catalogue() -> list[dict[str, Any]]:
    """``[{name, title, description, scales, cells, source}]`` of each built-in study (cells at lecture scale, as
    declared: before sweeps and seeds expand)."""
    out = []
    for name in builtin_names():
        path = BUILTIN / f"{name}.json"
        _, data = read_json(path)
        out.append({"name": name, "title": data.get("title") or name, "description": data.get("description") or "",
                    "scales": list((data.get("scales") or {"lecture": {}}).keys()),
                    "cells": len(data.get("cells") or []), "source": str(path)})
    return out
