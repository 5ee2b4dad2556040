"""What a study costs before it starts: the runs it will make and an estimate of the time on this machine.

A cell already finished (resume) or with a reusable run costs nothing. Otherwise its time is the median wall
time of this store's finished runs of the same kind with the same settings (seed and output folder aside), else
of the same kind on the same model, scaled by the work (epochs or steps) when both say it, else a rough default
per kind and scale (said: ``basis``). Runs of another model are no guide: a tiny model's fine-tuning told "about
46 s" for MiniLM's 3 epochs that take many minutes.
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

from lm_workbench.studies.file import Study

DEFAULT_S = {"tfidf-lr": 2.0, "bilstm": 15.0, "sts": 10.0, "probe": 30.0, "prompt-eval": 30.0, "finetune": 90.0,
             "pretrain": 180.0, "retrieval-eval": 30.0, "scalar-mix": 60.0, "tuned-lens": 120.0}
TINY_S = {"tfidf-lr": 1.0, "bilstm": 5.0, "sts": 5.0, "probe": 10.0, "prompt-eval": 8.0, "finetune": 10.0,
          "pretrain": 15.0, "retrieval-eval": 10.0, "scalar-mix": 15.0, "tuned-lens": 20.0}  # a few steps each
FALLBACK_S = 60.0


def _wall(run: dict[str, Any]) -> float | None:
    if run.get("started_at") and run.get("finished_at"):
        return float(run["finished_at"]) - float(run["started_at"])
    return None


def _work(settings: dict[str, Any]) -> tuple[str, float] | None:
    """How much a run trains: ("epochs", n) or ("steps", n) (``training.`` too); None when it does not say."""
    training = settings.get("training") if isinstance(settings.get("training"), dict) else {}
    for unit in ("epochs", "steps"):
        for value in (settings.get(unit), training.get(unit)):
            try:
                if value is not None and float(value) > 0:
                    return unit, float(value)
            except (TypeError, ValueError):
                continue
    return None


def _work_ratio(cell: dict[str, Any], earlier: dict[str, Any]) -> float:
    """The cell's work over an earlier run's, when both count it in the same unit (else 1)."""
    a, b = _work(cell), _work(earlier)
    return a[1] / b[1] if a is not None and b is not None and a[0] == b[0] else 1.0


def _loose(settings: dict[str, Any]) -> str:
    import json

    return json.dumps({k: v for k, v in settings.items() if k not in ("seed", "out_dir", "resume", "name")},
                      sort_keys=True, default=str)


def estimate(study: Study, store: Any, out_dir: str | Path | None = None) -> dict[str, Any]:
    """``{cells, to_run, skipped, seconds, basis: {cell: "..."}, text}``."""
    from lm_workbench.runs.reuse import find_reusable, reuse_key
    from lm_workbench.studies.runner import DONE, load_state

    state = load_state(study, Path(out_dir)) if out_dir is not None else None
    finished = store.list_runs(status="finished", recover=False)
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for run in finished:
        by_kind.setdefault(run["kind"], []).append(run)
    seconds, to_run, basis = 0.0, 0, {}
    for cell in study.cells:
        entry = state.cells.get(cell.id, {}) if state else {}
        if entry.get("status") in DONE:
            basis[cell.id] = "done (resumed)"
            continue
        if find_reusable(store, cell.kind, reuse_key(cell.kind, cell.settings)) is not None:
            basis[cell.id] = "reused"
            continue
        to_run += 1
        same = [w for r in by_kind.get(cell.kind, []) if isinstance(r.get("params"), dict)
                and _loose(r["params"]) == _loose(cell.settings) and (w := _wall(r)) is not None]
        model = cell.settings.get("model")
        kind_walls = [w * _work_ratio(cell.settings, r["params"]) for r in by_kind.get(cell.kind, [])
                      if isinstance(r.get("params"), dict) and model is not None and r["params"].get("model") == model
                      and (w := _wall(r)) is not None]
        if same:
            seconds += statistics.median(same)
            basis[cell.id] = f"{len(same)} earlier run(s) with these settings"
        elif kind_walls:
            seconds += statistics.median(kind_walls)
            basis[cell.id] = f"{len(kind_walls)} earlier {cell.kind} run(s) of {model}, scaled by epochs or steps"
        else:
            defaults = TINY_S if study.scale == "tiny" else DEFAULT_S
            seconds += defaults.get(cell.kind, FALLBACK_S)
            basis[cell.id] = f"a rough default for {cell.kind} at {study.scale} scale (no earlier run to go by)"
    skipped = len(study.cells) - to_run
    text = (f"{len(study.cells)} cell(s): {to_run} run(s) to make" + (f", {skipped} done or reused" if skipped else "")
            + f"; about {human_seconds(seconds)} on this machine")
    return {"cells": len(study.cells), "to_run": to_run, "skipped": skipped, "seconds": round(seconds, 1),
            "basis": basis, "text": text}


def human_seconds(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
