"""Merging fine-tuning runs as a recorded run (kind ``finetune-merge``): ``MergeSpec`` and ``MergeRun``.

The Runs tab's Merge… runs ``MergeRun(spec).window_job(store)`` (progress and Cancel in the window, the
result recorded in the run store, so it is listed beside the runs it came from and "Copy as CLI command"
gives the ``lm-workbench finetune-merge`` line); the long-run lane target
``lm_workbench.finetune.merge_runs:merge_lane_job`` serves "Run again". The work itself is
``lm_workbench.engine.finetune.merging.merge_runs``; ``lm-workbench finetune-merge`` drives it unrecorded, as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Generator

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.finetune.merge_math import DENSITY_HOWS, HOWS, SEEDED_HOWS
from lm_workbench.runs.kinds import RunKind, spec_command
from lm_workbench.runs.recorder import LongRun
from lm_workbench.runs.spec import RunSpec

KIND = "finetune-merge"


@dataclass
class MergeSpec(RunSpec):
    """Fine-tuning output folders merged into ``out_dir`` (``finetune-merge``'s options)."""

    sources: list[str]
    out_dir: str
    how: str = "linear"
    weights: list[float] | None = None  # None: 1/n each
    density: float = 0.5
    seed: int = 0
    fold: bool = False

    WHAT: ClassVar[str] = "merge"
    REQUIRED: ClassVar[tuple[str, ...]] = ("sources", "out_dir")

    def check(self) -> None:
        if not self.sources:
            raise WorkbenchError("name at least one fine-tuning output folder to merge")
        if not self.out_dir:
            raise WorkbenchError("name the merged output folder (--out)")
        if self.how not in HOWS:
            raise WorkbenchError(f"--how must be one of {', '.join(HOWS)}, not {self.how!r}")
        if self.weights is not None and len(self.weights) != len(self.sources):
            raise WorkbenchError(f"--weights gives {len(self.weights)} number(s) for {len(self.sources)} run(s)")
        if self.weights is not None:
            from lm_workbench.engine.finetune.merging import check_weights

            check_weights(self.weights)

    def title(self) -> str:
        if len(self.sources) == 1:
            return f"fold {Path(self.sources[0]).name}"
        return f"merge ({self.how}) of {len(self.sources)} runs" + (", folded" if self.fold else "")

    def cli_args(self) -> list[str]:
        parts = ["lm-workbench", "finetune-merge", *self.sources]
        if len(self.sources) > 1:
            parts += ["--how", self.how]
            if self.weights is not None:
                parts += ["--weights", ",".join(f"{w:g}" for w in self.weights)]
            if self.how in DENSITY_HOWS:
                parts += ["--density", f"{self.density:g}"]
            if self.how in SEEDED_HOWS:
                parts += ["--seed", str(self.seed)]
            if self.fold:
                parts.append("--fold")
        return parts + ["--out", self.out_dir]


FINETUNE_MERGE = RunKind(kind=KIND, target="lm_workbench.finetune.merge_runs:merge_lane_job", title="Merge",
                         command=spec_command(MergeSpec))


def _base_label(spec: MergeSpec) -> str:
    from lm_workbench.engine.finetune.saved import read_manifest

    try:
        return Path(str(read_manifest(spec.sources[0]).get("base_model", ""))).name
    except WorkbenchError:
        return ""


class MergeRun(LongRun):
    kind = KIND
    Spec = MergeSpec

    def columns(self) -> dict[str, Any]:
        return {"name": self.spec.title(), "model": _base_label(self.spec),
                "method": "fold" if len(self.spec.sources) == 1 else f"merge {self.spec.how}"}

    def preflight(self) -> None:
        """The cheap checks (the folders' manifests and adapter configs), before a run is recorded."""
        from lm_workbench.engine.finetune.merging import check_combinable, check_mergeable, read_source

        self.spec.check()
        sources = [read_source(folder) for folder in self.spec.sources]
        if len(sources) == 1:
            check_mergeable(sources[0])
        else:
            check_combinable(sources, self.spec.how, self.spec.weights)

    def job(self, ctx: Any, report: Any) -> Generator[Any, None, dict[str, Any]]:
        from lm_workbench.engine.finetune.merging import merge_runs

        spec = self.spec
        summary = yield from merge_runs(spec.sources, spec.out_dir, how=spec.how, weights=spec.weights,
                                        density=spec.density, seed=spec.seed, fold=spec.fold, cancel=ctx)
        return summary

    def finished_summary(self, run_id: int, summary: dict[str, Any]) -> dict[str, Any]:
        return {**summary, "run_id": run_id}

    def artifacts(self, summary: dict[str, Any]) -> list[tuple[str, str, str]]:
        from lm_workbench.engine.finetune.saved import ADAPTER_FOLDER

        return [("merged", "model", str(Path(summary["out_dir"]) / ADAPTER_FOLDER))]


merge_lane_job = MergeRun.lane_job


def default_out_dir(sources: list[str], how: str, fold: bool) -> str:
    """Where a merge of ``sources`` goes unless told: beside the first run, named by what was done."""
    first = Path(sources[0])
    if len(sources) == 1:
        return str(first.with_name(f"{first.name}-merged"))
    return str(first.with_name(f"{first.name}-{how}-{len(sources)}" + ("-folded" if fold else "")))


__all__ = ["FINETUNE_MERGE", "KIND", "MergeRun", "MergeSpec", "default_out_dir", "merge_lane_job"]
