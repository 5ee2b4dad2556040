"""The ``study`` run kind: a study run is a recorded run that links its cells.

``StudySpec`` is its record (the study file or built-in name, the scale, ``--set`` variables, the output
folder); ``StudyRun`` (a ``LongRun``) runs the queue (``lm_workbench.studies.runner``) under the study's own run:
``total_steps`` is the number of cells, each cell logs ``cells_done`` and ``cell_run_id`` at its index, and the
state file and table are its artifacts. The CLI (``lm-workbench study run``), the long-run lane (the Runs tab's
Start and "Run again") and resume all go through it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, ClassVar

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.runs.kinds import RunKind, spec_command
from lm_workbench.runs.recorder import LongRun
from lm_workbench.runs.spec import RunSpec
from lm_workbench.studies.names import DEFAULT_SCALE, SCALES, SWEEP_LIMIT

TABLE_FILE = "table.json"


def default_out_dir(name: str, scale: str) -> str:
    from lm_workbench.paths import data_dir

    return str(data_dir() / "studies" / f"{name}-{scale}")


@dataclass
class StudySpec(RunSpec):
    """A study run: ``study`` (a file or a built-in's name), ``scale``, ``sets`` (variables), ``out_dir``, and
    ``yes`` (allow more than ``SWEEP_LIMIT`` cells)."""

    study: str
    scale: str = DEFAULT_SCALE
    out_dir: str | None = None
    sets: dict[str, str] = field(default_factory=dict)
    yes: bool = False

    WHAT: ClassVar[str] = "study"
    REQUIRED: ClassVar[tuple[str, ...]] = ("study",)

    def check(self) -> None:
        if self.scale not in SCALES:
            raise WorkbenchError(f"--scale must be one of {', '.join(SCALES)}, not {self.scale!r}")

    def load(self) -> Any:
        """The study read and checked (``load_study``), with its output folder; refuses a study over the limit
        without ``yes``."""
        from lm_workbench.studies.file import load_study, resolve_source

        out = self.out_dir or default_out_dir(resolve_source(self.study).stem, self.scale)
        study = load_study(self.study, scale=self.scale, sets=self.sets, out_dir=out)
        if len(study.cells) > SWEEP_LIMIT and not self.yes:
            raise WorkbenchError(f"the study {study.name} expands to {len(study.cells)} cells, more than "
                                 f"{SWEEP_LIMIT}; pass --yes to run them all")
        return study, Path(out)

    def cli_args(self) -> list[str]:
        parts = ["lm-workbench", "study", "run", self.study, "--scale", self.scale]
        if self.out_dir:
            parts += ["--out", self.out_dir]
        for key, value in sorted(self.sets.items()):
            parts += ["--set", f"{key}={value}"]
        if self.yes:
            parts.append("--yes")
        return parts


STUDY = RunKind(kind="study", target="lm_workbench.studies.runs:study_lane_job", title="Study",
                command=spec_command(StudySpec))


class StudyRun(LongRun):
    kind = STUDY.kind
    Spec = StudySpec

    def __init__(self, spec: StudySpec, loaded: Any = None, on_event: Callable[[Any], None] | None = None) -> None:
        super().__init__(spec, loaded)
        self.on_event = on_event

    def columns(self) -> dict[str, Any]:
        return {"name": f"study {Path(self.spec.study).stem} ({self.spec.scale})", "model": None, "method": "study"}

    def preflight(self) -> None:
        self.spec.check()
        self.spec.load()

    def body(self, ctx: Any, report: Any) -> dict[str, Any]:
        from lm_workbench.studies.runner import run_cells
        from lm_workbench.studies.table import build_table

        study, out = self.spec.load()
        store = ctx.store
        store.set_total_steps(ctx.run_id, len(study.cells))
        (out).mkdir(parents=True, exist_ok=True)
        (out / "study.json").write_text(json.dumps(study.to_json(), indent=1, default=str), encoding="utf-8")
        gen = run_cells(study, store, out, ctx.cancel_event, study_run_id=ctx.run_id)
        while True:
            try:
                event = next(gen)
            except StopIteration as stop:
                state = stop.value
                break
            if event.status != "starting" and event.status != "running":
                ctx.log_dict(event.index, {"cells_done": float(event.index),
                                           **({"cell_run_id": float(event.run_id)} if event.run_id else {})})
            report(event)
            if self.on_event is not None:
                self.on_event(event)
        table = build_table(study, state.cells, store)
        (out / TABLE_FILE).write_text(json.dumps(table, indent=1, default=str), encoding="utf-8")
        failed = [c for c, e in state.cells.items() if e.get("status") not in ("finished", "reused", "resumed")]
        return {"name": study.name, "out_dir": str(out), "steps": len(study.cells), "table": table,
                "state": state.to_json(), "failed_cells": failed}

    def final_metrics(self, summary: dict[str, Any]) -> dict[str, float]:
        return {"cells_failed": float(len(summary["failed_cells"]))}

    def artifacts(self, summary: dict[str, Any]) -> list[tuple[str, str, str]]:
        out = Path(summary["out_dir"])
        return [("study state", "summary", str(out / "study-state.json")), ("table", "summary", str(out / TABLE_FILE))]

    def finished_summary(self, run_id: int, summary: dict[str, Any]) -> dict[str, Any]:
        return {**summary, "run_id": run_id}


study_lane_job = StudyRun.lane_job
