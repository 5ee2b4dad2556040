"""Grid and random sweeps over any run's settings, expanded into cells (no torch, no numpy).

A sweep block (in a study file)::

    {"kind": "finetune", "settings": {...the base settings...},
     "grid": {"lr": [1e-4, 3e-4], "method_config.rank": {"range": [4, 16, 4]}},
     "random": {"n": 6, "seed": 0, "space": {"training.warmup": [0, 10], "epochs": {"low": 1, "high": 3, "int": true}}},
     "row": "lr={lr} r={method_config.rank}"}

``grid`` values are lists or ``{"range": [start, stop, step]}`` (``stop`` included when a step lands on it);
``random`` draws ``n`` points from ``space`` with its own ``seed`` (a list: one of its values; ``{"low", "high"}``:
uniform, ``"log": true`` log-uniform, ``"int": true`` whole numbers). Both given: each grid point is crossed
with each random draw. A dotted key sets a nested setting (``training.lr``). ``row`` names each cell's table
row (``{key}`` is the point's value; default: every swept ``key=value``).
"""

from __future__ import annotations

import itertools
import math
import random
from typing import Any

from lm_workbench.engine.errors import WorkbenchError


def range_values(spec: Any, where: str) -> list[Any]:
    """``[start, stop, step]`` as a list (floats rounded to 12 significant digits, ints kept)."""
    if not (isinstance(spec, list) and len(spec) == 3 and all(isinstance(v, (int, float)) for v in spec)):
        raise WorkbenchError(f"{where}: a range is [start, stop, step] of numbers, not {spec!r}")
    start, stop, step = spec
    if step == 0 or (stop - start) / step < 0:
        raise WorkbenchError(f"{where}: the range {spec} never reaches its stop")
    count = int(math.floor((stop - start) / step + 1e-9)) + 1
    whole = all(isinstance(v, int) for v in spec)
    return [start + i * step if whole else float(f"{start + i * step:.12g}") for i in range(count)]


def grid_axes(grid: dict[str, Any], where: str) -> list[tuple[str, list[Any]]]:
    """The grid's (key, values) in the file's order."""
    axes = []
    for key, values in grid.items():
        if isinstance(values, dict) and set(values) == {"range"}:
            values = range_values(values["range"], f"{where}.{key}")
        if not isinstance(values, list) or not values:
            raise WorkbenchError(f"{where}.{key}: a grid axis is a non-empty list or {{\"range\": [start, stop, "
                                 f"step]}}, not {values!r}")
        axes.append((key, values))
    return axes


def draw(space: dict[str, Any], rng: random.Random, where: str) -> dict[str, Any]:
    """One random point of ``space``."""
    point: dict[str, Any] = {}
    for key, dim in space.items():
        if isinstance(dim, list) and dim:
            point[key] = rng.choice(dim)
        elif isinstance(dim, dict) and {"low", "high"} <= set(dim):
            low, high = float(dim["low"]), float(dim["high"])
            if high < low or (dim.get("log") and low <= 0):
                raise WorkbenchError(f"{where}.{key}: need 0 < low <= high for a log range, low <= high otherwise")
            value = math.exp(rng.uniform(math.log(low), math.log(high))) if dim.get("log") else rng.uniform(low, high)
            point[key] = int(round(value)) if dim.get("int") else float(f"{value:.6g}")
        else:
            raise WorkbenchError(f"{where}.{key}: a random dimension is a list of values or {{\"low\", \"high\"}}, "
                                 f"not {dim!r}")
    return point


def sweep_points(block: dict[str, Any], where: str = "sweep") -> list[dict[str, Any]]:
    """Every point of the sweep, in order: the grid's product (last key fastest) crossed with the random draws."""
    grid = block.get("grid") or {}
    rand = block.get("random")
    if not grid and not rand:
        raise WorkbenchError(f"{where}: a sweep needs a grid or a random block")
    axes = grid_axes(grid, f"{where}.grid") if grid else []
    grid_points = [dict(zip([k for k, _ in axes], combo)) for combo in itertools.product(*[v for _, v in axes])]
    if not rand:
        return grid_points
    if not isinstance(rand, dict) or not isinstance(rand.get("n"), int) or rand["n"] < 1:
        raise WorkbenchError(f"{where}.random: needs n (a whole number >= 1), seed and space")
    rng = random.Random(int(rand.get("seed", 0)))
    draws = [draw(rand.get("space") or {}, rng, f"{where}.random.space") for _ in range(rand["n"])]
    return [{**g, **d} for g in (grid_points or [{}]) for d in draws]


def set_dotted(settings: dict[str, Any], key: str, value: Any) -> dict[str, Any]:
    """A copy of ``settings`` with ``a.b`` set to ``value`` (nested dicts made as needed)."""
    out = dict(settings)
    head, _, rest = key.partition(".")
    if rest:
        inner = out.get(head)
        out[head] = set_dotted(inner if isinstance(inner, dict) else {}, rest, value)
    else:
        out[head] = value
    return out


def point_label(point: dict[str, Any], template: str | None) -> str:
    """The row name of a sweep point."""
    if template:
        text = template
        for key, value in point.items():
            text = text.replace("{" + key + "}", f"{value:g}" if isinstance(value, float) else str(value))
        return text
    return " ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in point.items())


def expand_sweep(block: dict[str, Any], where: str = "sweep") -> list[dict[str, Any]]:
    """The sweep's cells: ``{id, row, kind, settings, point}`` per point."""
    base = block.get("settings") or {}
    prefix = block.get("id") or "sweep"
    cells = []
    for i, point in enumerate(sweep_points(block, where)):
        settings = dict(base)
        for key, value in point.items():
            settings = set_dotted(settings, key, value)
        cells.append({"id": f"{prefix}-{i + 1}", "row": point_label(point, block.get("row")),
                      "kind": block.get("kind"), "settings": settings, "point": point})
    return cells
