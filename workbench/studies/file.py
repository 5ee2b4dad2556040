"""Reading a study file (``lm-workbench-study/1``, JSON) into a ``Study``: its cells expanded (sweeps, seeds,
variables, the chosen scale) and checked before anything runs.

Every refusal is one ``WorkbenchError`` line naming the file, the line and the key: an unknown top-level key,
run kind, setting, variable, column or scale; a published block whose rows or columns are not the table's; a
cell that needs a cell the study does not have. See docs/studies.md for the format.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.studies.names import (
    CELL_KEYS, COLUMN_KEYS, DEFAULT_SCALE, FIGURE_KEYS, FIGURES, FORMAT, PUBLISHED_KEYS, REDUCES, SWEEP_KEYS, TOP_KEYS,
    TREND_EXPECT, TREND_KEYS,
)
from lm_workbench.studies.sweep import expand_sweep, set_dotted

BUILTIN = Path(__file__).parent / "builtin"
VAR = re.compile(r"\{([A-Za-z_][\w-]*|out:[\w#.-]+)\}")


@dataclass
class Cell:
    """One run of a study: ``id`` (unique; ``group`` is the id before its seed), its table ``row``, the run
    ``kind`` and its ``settings`` (variables filled in, ``out_dir`` given when the kind writes one)."""

    id: str
    row: str
    kind: str
    settings: dict[str, Any]
    group: str
    seed: int | None = None
    needs: list[str] = field(default_factory=list)
    note: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "row": self.row, "kind": self.kind, "settings": self.settings, "group": self.group,
                "seed": self.seed, "needs": self.needs, "note": self.note}


@dataclass
class Study:
    """A study read and checked: its cells in run order, its table's rows and columns, figure and published."""

    name: str
    title: str
    scale: str
    source: str  # the file read (a built-in's path too)
    cells: list[Cell]
    rows: list[str]
    columns: list[dict[str, Any]]
    figure: dict[str, Any]
    published: dict[str, Any] | None
    description: str = ""
    caption: str = ""
    scale_note: str = ""
    notes: list[str] = field(default_factory=list)
    vars: dict[str, Any] = field(default_factory=dict)
    trends: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "title": self.title, "scale": self.scale, "source": self.source,
                "description": self.description, "caption": self.caption, "scale_note": self.scale_note,
                "rows": self.rows, "columns": self.columns, "figure": self.figure, "published": self.published,
                "notes": self.notes, "vars": self.vars, "trends": self.trends, "cells": [c.to_json() for c in self.cells]}


def line_of(text: str, needle: str, after: int = 0) -> int:
    """The 1-based line of the first ``"needle"`` in ``text`` at or after character ``after`` (1 if absent)."""
    at = text.find(json.dumps(needle), after)
    if at < 0:
        at = text.find(needle, after)
    return text.count("\n", 0, at) + 1 if at >= 0 else 1


class _Where:
    """Builds the one-line refusals: ``<file>, line N: message``."""

    def __init__(self, source: str, text: str) -> None:
        self.source, self.text = source, text

    def error(self, needle: str, message: str) -> WorkbenchError:
        return WorkbenchError(f"{self.source}, line {line_of(self.text, needle)}: {message}")


def builtin_names() -> list[str]:
    """The built-in studies' names (their files' stems), sorted."""
    return sorted(p.stem for p in BUILTIN.glob("*.json"))


def resolve_source(source: str | Path) -> Path:
    """A study file's path: a file as given, else a built-in study by name."""
    path = Path(source)
    if path.is_file():
        return path
    builtin = BUILTIN / f"{source}.json"
    if builtin.is_file():
        return builtin
    raise WorkbenchError(f"no study file or built-in study named {str(source)!r}; built-in: "
                         f"{', '.join(builtin_names())}")


def demo_value(value: Any) -> Any:
    """``demo:<task>`` (a variable's value) as the shipped file's path: ``demo:seq-cls`` and the other
    fine-tuning tasks, ``demo:sts``, ``demo:pos``; any other value as it is."""
    if not (isinstance(value, str) and value.startswith("demo:")):
        return value
    name = value[5:]
    from lm_workbench.engine.probing.demo import POS_DEMO, STS_DEMO

    if name == "sts":
        return str(STS_DEMO)
    if name == "pos":
        return str(POS_DEMO)
    if name == "corpus":  # the course models' corpus (written once into the cache folder)
        from lm_workbench.engine.pretrain.python_docs import python_docs_corpus
        from lm_workbench.paths import cache_dir

        return str(python_docs_corpus(cache_dir() / "studies"))
    from lm_workbench.engine.finetune.demo import demo_path

    return str(demo_path(name))


def substitute(value: Any, variables: dict[str, Any], outs: dict[str, str], needs: set[str]) -> Any:
    """``value`` with each ``{name}`` of a declared variable and each ``{out:cell}`` filled in (a string that is
    exactly one variable takes the variable's type); other braces (a prompt's ``{text}``) are left alone."""
    if isinstance(value, dict):
        return {k: substitute(v, variables, outs, needs) for k, v in value.items()}
    if isinstance(value, list):
        return [substitute(v, variables, outs, needs) for v in value]
    if not isinstance(value, str):
        return value

    def one(name: str) -> Any:
        if name.startswith("out:"):
            needs.add(name[4:])
            return outs.get(name[4:], "{" + name + "}")
        return variables[name]

    whole = VAR.fullmatch(value)
    if whole and (whole.group(1) in variables or whole.group(1).startswith("out:")):
        return one(whole.group(1))
    return VAR.sub(lambda m: str(one(m.group(1))) if m.group(1) in variables or m.group(1).startswith("out:")
                   else m.group(0), value)


def _check_keys(where: _Where, block: Any, allowed: tuple[str, ...], what: str) -> None:
    if not isinstance(block, dict):
        raise WorkbenchError(f"{where.source}: {what} must be a JSON object")
    for key in block:
        if key not in allowed:
            raise where.error(key, f"unknown key {key!r} in {what} (known: {', '.join(allowed)})")


def read_json(path: Path) -> tuple[str, dict[str, Any]]:
    from lm_workbench.engine.text_input import read_text_file

    text = read_text_file(path)  # the one checked reader: missing, unreadable, binary or not UTF-8 in one line
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise WorkbenchError(f"{path}, line {getattr(exc, 'lineno', 1)}: not JSON ({exc.msg if hasattr(exc, 'msg') else exc})"
                             ) from None
    if not isinstance(data, dict):
        raise WorkbenchError(f"{path}: a study file is a JSON object")
    return text, data


def load_study(source: str | Path, *, scale: str = DEFAULT_SCALE, sets: dict[str, str] | None = None,
               out_dir: str | Path | None = None) -> Study:
    """Read, expand and check a study (a file or a built-in's name) at ``scale``; ``sets`` override its
    variables (``--set name=value``); ``out_dir`` is where cells that write files write them
    (``<out_dir>/cells/<cell id>``)."""
    path = resolve_source(source)
    text, data = read_json(path)
    where = _Where(str(path), text)
    _check_keys(where, data, TOP_KEYS, "the study")
    if data.get("format") != FORMAT:
        raise where.error("format", f"format must be {FORMAT!r}, not {data.get('format')!r}")
    scales = data.get("scales") or {}
    if scales and scale not in scales:
        raise WorkbenchError(f"{path}: no scale {scale!r}; this study has {', '.join(scales)}")
    chosen = scales.get(scale) or {}
    _check_keys(where, chosen, ("vars", "settings", "seeds", "note"), f"scale {scale!r}")
    variables = {**(data.get("vars") or {}), **(chosen.get("vars") or {})}
    for key, value in (sets or {}).items():
        if key not in variables:
            raise WorkbenchError(f"--set {key}: the study has no variable {key!r} (it has "
                                 f"{', '.join(variables) or 'none'})")
        variables[key] = value
    variables = {k: demo_value(v) for k, v in variables.items()}
    seeds = chosen.get("seeds", data.get("seeds"))
    out = Path(out_dir) if out_dir is not None else Path("study-out")
    raw = _raw_cells(where, data)
    cells = _expand(where, raw, variables, chosen.get("settings") or {}, seeds, out)
    columns = _columns(where, data.get("columns"))
    rows = list(data.get("rows") or [])
    for cell in cells:
        if cell.row not in rows:
            rows.append(cell.row)
    figure = dict(data.get("figure") or {"type": "bars"})
    _check_keys(where, figure, FIGURE_KEYS, "figure")
    if figure.get("type", "bars") not in FIGURES:
        raise where.error(figure.get("type"), f"figure type must be one of {', '.join(FIGURES)}")
    names = [c["name"] for c in columns]
    for key in ("y", "x"):
        if key in figure and figure[key] not in names and not (key == "x" and figure.get("type") == "lines"):
            raise where.error(figure[key], f"the figure's {key} {figure[key]!r} is not a column ({', '.join(names)})")
    published = data.get("published")
    if published is not None:
        _check_published(where, published, rows, names)
    trends = _trends(where, data.get("trends") or [], rows, names)
    notes = list(data.get("notes") or [])
    if chosen.get("note"):
        notes.append(chosen["note"])
    return Study(name=str(data.get("name") or path.stem), title=str(data.get("title") or path.stem), scale=scale,
                 source=str(path), cells=cells, rows=rows, columns=columns, figure=figure, published=published,
                 description=str(data.get("description") or ""), caption=str(data.get("caption") or ""),
                 scale_note=str(data.get("scale_note") or ""), notes=notes, vars=variables,
                 trends=trends)


def _raw_cells(where: _Where, data: dict[str, Any]) -> list[dict[str, Any]]:
    cells = data.get("cells") or []
    if not isinstance(cells, list):
        raise where.error("cells", "cells must be a list")
    out = []
    for cell in cells:
        _check_keys(where, cell, CELL_KEYS, f"cell {cell.get('id', '?') if isinstance(cell, dict) else '?'}")
        out.append(copy.deepcopy(cell))
    if data.get("sweep") is not None:
        _check_keys(where, data["sweep"], SWEEP_KEYS, "the sweep")
        try:
            out.extend(expand_sweep(data["sweep"]))
        except WorkbenchError as exc:
            raise where.error("sweep", str(exc)) from None
    if not out:
        raise WorkbenchError(f"{where.source}: the study declares no cells (cells or sweep)")
    return out


def _seed_key(kind: Any, settings: dict[str, Any]) -> str | None:
    """Where a run kind takes its seed: ``seed``, else ``training.seed`` (pre-training), else None."""
    for key in ("seed", "training.seed"):
        try:
            kind.cli_command(set_dotted(settings, key, 0))
            return key
        except WorkbenchError as exc:
            if "seed" not in str(exc):
                return key
    return None


def _expand(where: _Where, raw: list[dict[str, Any]], variables: dict[str, Any], scale_settings: dict[str, Any],
            seeds: Any, out: Path) -> list[Cell]:
    from lm_workbench.runs.kinds import run_kinds

    kinds = run_kinds()
    ids = [str(c.get("id") or f"cell-{i + 1}") for i, c in enumerate(raw)]
    duplicate = sorted({i for i in ids if ids.count(i) > 1})
    if duplicate:
        raise where.error(duplicate[0], f"two cells have the id {duplicate[0]!r}")
    cells: list[Cell] = []
    outs: dict[str, str] = {}
    for cell_id, item in zip(ids, raw):
        kind_name = item.get("kind")
        if kind_name == "study" or kind_name not in kinds:
            raise where.error(str(kind_name), f"cell {cell_id}: unknown run kind {kind_name!r} (known: "
                                              f"{', '.join(sorted(k for k in kinds if k != 'study'))})")
        kind = kinds[kind_name]
        settings = {**(scale_settings.get(kind_name) or {}), **(item.get("settings") or {})}
        needs: set[str] = set(item.get("needs") or [])
        settings = substitute(settings, variables, outs, needs)
        for need in needs:
            if need not in outs:
                raise where.error(f"out:{need}", f"cell {cell_id} needs cell {need!r}, which is not declared before it")
        cell_seeds = item.get("seeds", seeds)
        key = _seed_key(kind, settings) if cell_seeds else None
        for seed in (cell_seeds or [None]):
            this_id = cell_id if seed is None or len(cell_seeds) == 1 else f"{cell_id}#s{seed}"
            this = set_dotted(settings, key, seed) if key and seed is not None else dict(settings)
            this = _with_out_dir(kind, this, out / "cells" / this_id.replace("#", "-"))
            try:
                kind.cli_command(this)
            except WorkbenchError as exc:
                raise where.error(_named(str(exc), cell_id), f"cell {cell_id} ({kind_name}): {exc}") from None
            cells.append(Cell(id=this_id, row=str(item.get("row") or cell_id), kind=kind_name, settings=this,
                              group=cell_id, seed=seed, needs=sorted(needs), note=item.get("note")))
        outs[cell_id] = str(out / "cells" / cell_id.replace("#", "-"))
        if cell_seeds and len(cell_seeds) > 1:  # a dependency on a repeated cell reads its first seed's output
            outs[cell_id] = str(out / "cells" / f"{cell_id}-s{cell_seeds[0]}")
    return cells


def _named(message: str, fallback: str) -> str:
    """The first setting an ``unknown ... setting(s): a, b`` message names (to find its line)."""
    if "setting(s): " in message:
        return message.split("setting(s): ", 1)[1].split(",")[0].split(" ")[0].strip()
    return fallback


def _with_out_dir(kind: Any, settings: dict[str, Any], folder: Path) -> dict[str, Any]:
    """``settings`` with ``out_dir`` given when the kind takes one and the cell left it out."""
    if "out_dir" in settings:
        return settings
    trial = {**settings, "out_dir": str(folder)}
    try:
        kind.cli_command(trial)
    except WorkbenchError as exc:
        if "out_dir" in str(exc):
            return settings
    return trial


def _columns(where: _Where, columns: Any) -> list[dict[str, Any]]:
    if not isinstance(columns, list) or not columns:
        raise WorkbenchError(f"{where.source}: the study needs columns (a list of {{name, metric}})")
    out = []
    for col in columns:
        _check_keys(where, col, COLUMN_KEYS, f"column {col.get('name', '?') if isinstance(col, dict) else '?'}")
        if not col.get("name") or not col.get("metric"):
            raise where.error("columns", "each column needs a name and a metric")
        cell = col.get("cell")
        if cell is not None and not (isinstance(cell, str) or (isinstance(cell, list) and cell
                                                               and all(isinstance(c, str) for c in cell))):
            raise where.error("cell", f"column {col['name']}: cell is a cell's id or a list of ids")
        if "step" in col and not isinstance(col["step"], int):
            raise where.error("step", f"column {col['name']}: step is a whole number (a layer, for per-layer runs)")
        if col.get("reduce", "last") not in REDUCES:
            raise where.error(col["reduce"], f"column {col['name']}: reduce must be one of {', '.join(REDUCES)}")
        out.append({"reduce": "last", **col})
    names = [c["name"] for c in out]
    if len(set(names)) != len(names):
        raise where.error("columns", "two columns have the same name")
    return out


def _check_published(where: _Where, published: Any, rows: list[str], names: list[str]) -> None:
    _check_keys(where, published, PUBLISHED_KEYS, "the published block")
    if not published.get("source"):
        raise where.error("published", "the published block needs its source")
    pub_columns = published.get("columns") or {}
    if not isinstance(pub_columns, dict):
        raise where.error("published", "published columns map each published column to a table column (or null)")
    for pub, local in pub_columns.items():
        if local is not None and local not in names:
            raise where.error(pub, f"the published column {pub!r} maps to {local!r}, which is not a column of the "
                                   f"table ({', '.join(names)})")
    for row, values in (published.get("values") or {}).items():
        if row not in rows:
            raise where.error(row, f"the published row {row!r} is not a row of the table ({', '.join(rows)})")
        for key in values:
            if key not in pub_columns:
                raise where.error(key, f"the published value {key!r} (row {row}) is not a published column "
                                       f"({', '.join(pub_columns)})")


def _trends(where: _Where, trends: Any, rows: list[str], names: list[str]) -> list[dict[str, Any]]:
    """The trends the table checks: ``{claim, column, rows, expect, margin}`` (the column's values over ``rows``, in
    that order, ``increasing`` or ``decreasing``, each step by more than ``margin``: what the held-out set can
    resolve, default 0)."""
    if not isinstance(trends, list):
        raise where.error("trends", "trends must be a list of {claim, column, rows, expect}")
    out = []
    for trend in trends:
        _check_keys(where, trend, TREND_KEYS, "a trend")
        if trend.get("column") not in names:
            raise where.error(str(trend.get("column")), f"the trend's column {trend.get('column')!r} is not a column "
                                                        f"({', '.join(names)})")
        if trend.get("expect") not in TREND_EXPECT:
            raise where.error("expect", f"a trend's expect is one of {', '.join(TREND_EXPECT)}")
        for row in trend.get("rows") or []:
            if row not in rows:
                raise where.error(row, f"the trend's row {row!r} is not a row of the table")
        if len(trend.get("rows") or []) < 2:
            raise where.error("trends", "a trend compares at least two rows")
        margin = trend.get("margin", 0)
        if isinstance(margin, bool) or not isinstance(margin, (int, float)) or margin < 0:
            raise where.error("margin", "a trend's margin is a number >= 0 (in the column's unit)")
        out.append({"claim": str(trend.get("claim") or ""), "column": trend["column"], "rows": list(trend["rows"]),
                    "expect": trend["expect"], "margin": float(margin)})
    return out
