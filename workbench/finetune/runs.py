"""Fine-tuning as a recorded run: ``FineTuneRun``, a ``LongRun`` (``lm_workbench.runs.recorder``).

The recorder records it the same way from every front end: the long-run lane's job ``finetune_lane_job`` (target
``"lm_workbench.finetune.runs:finetune_lane_job"``, in the lane's spawned child), ``submit_finetune(lane, spec)`` (queue
it; returns the run id) and ``run_recorded(spec)`` (the CLI's way: in this process, a heartbeat, Ctrl-C as
cancel; under torchrun only rank 0 records). The job's events become run-store metrics through
``FineTuneReporter``: ``trainable_parameters, total_parameters, trainable_percent`` at step 0 before training;
``loss, lr, grad_norm, tokens_per_s`` per logged step; ``validation_loss, perplexity`` and the task's metrics,
e.g. ``accuracy, f1, mcc``, per evaluation; at the last step ``wall_s, peak_memory_mb, adapter_bytes`` and the
counts again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from lm_workbench.finetune.spec import FineTuneSpec
from lm_workbench.runs.kinds import RunKind
from lm_workbench.runs.recorder import LongRun, StoreReporter

KIND = "finetune"
FINAL_METRICS = ("trainable_parameters", "total_parameters", "trainable_percent", "wall_s", "peak_memory_mb",
                 "adapter_bytes")


def _finetune_command(params: dict[str, Any]) -> str:
    return FineTuneSpec.from_dict(params).cli_command()


FINETUNE = RunKind(kind=KIND, target="lm_workbench.finetune.runs:finetune_lane_job", title="Fine-tuning",
                   command=_finetune_command, resumable=True)


def model_label(spec: FineTuneSpec) -> str:
    return spec.model or "minilm"


class FineTuneReporter(StoreReporter):
    """``StoreReporter`` plus the trainable/total parameter counts, logged at step 0 before training."""

    def __call__(self, event: Any) -> None:
        from lm_workbench.engine.finetune.train import ParametersCounted

        if isinstance(event, ParametersCounted):
            self.ctx.log_dict(0, {"trainable_parameters": float(event.trainable),
                                  "total_parameters": float(event.total), "trainable_percent": event.percent})
            return
        super().__call__(event)


def method_source(name: str) -> str:
    """The distribution (and version) that registers method ``name``, or where else it came from."""
    from importlib.metadata import entry_points

    for ep in entry_points(group="lm_workbench.finetune_methods"):
        if ep.name == name and ep.dist is not None:
            return f"{ep.dist.name} {ep.dist.version}"
    return "plugins folder"


class FineTuneRun(LongRun):
    kind = KIND
    Spec = FineTuneSpec
    Reporter = FineTuneReporter

    def __init__(self, spec: FineTuneSpec, loaded: Any = None,
                 on_read: Callable[[Any], None] | None = None, on_note: Callable[[str], None] | None = None) -> None:
        super().__init__(spec, loaded)
        self.on_read = on_read  # hears each data file's ReadReport (rows read and skipped) before training
        self.on_note = on_note  # hears what the label rule did with the data (the summary's notes), before training

    def columns(self) -> dict[str, Any]:
        return {"name": self.spec.title(), "model": model_label(self.spec), "method": self.spec.method}

    def preflight(self) -> None:
        from lm_workbench.finetune.train import preflight

        checked = preflight(self.spec)
        if self.on_read is not None:
            for report in checked.data.reads.values():
                self.on_read(report)
        if self.on_note is not None:
            for line in checked.data.notes:
                self.on_note(line)

    def body(self, ctx: Any, report: Any) -> dict[str, Any]:
        from lm_workbench.finetune.train import run_finetune

        return run_finetune(self.spec, cancel=ctx, report=report, run_id=ctx.run_id)

    def final_metrics(self, summary: dict[str, Any]) -> dict[str, float]:
        return {k: summary[k] for k in FINAL_METRICS if summary.get(k) is not None}

    def artifacts(self, summary: dict[str, Any]) -> list[tuple[str, str, str]]:
        found = [("adapter", "model", summary["adapter_dir"]), ("summary", "summary", summary["summary_path"])]
        folder = (summary.get("sentence") or {}).get("sentence_transformers")
        if folder:  # a sentence encoder folded into its weights (issue 32)
            found.append(("sentence-transformers", "model", folder))
        return found

    def provenance(self, summary: dict[str, Any]) -> dict[str, Any]:
        from lm_workbench.runs.provenance import collect_provenance

        spec = FineTuneSpec.from_dict(summary["spec"])
        files = [p for p in (spec.train, spec.validation) if p and Path(p).is_file()]
        return collect_provenance(device=summary.get("device") or "", dtype="float32", seed=spec.seed,
                                  model_folder=summary.get("base_model"), data_files=files,
                                  plugin=(spec.method, method_source(spec.method)), cli_command=spec.cli_command())


finetune_lane_job = FineTuneRun.lane_job


def submit_finetune(lane: Any, spec: FineTuneSpec) -> int:
    """Queue ``spec`` on a ``LongRunLane``; returns the run id. The spec is checked first (cheap)."""
    return FineTuneRun(spec).submit(lane, FINETUNE.target)


def run_recorded(spec: FineTuneSpec, *, echo: Callable[[str], None] | None = None,
                 store_path: Any = None, on_read: Callable[[Any], None] | None = None,
                 on_note: Callable[[str], None] | None = None) -> dict[str, Any] | None:
    """Run ``spec`` in this process as a recorded ``finetune`` run; returns the summary (None on the ranks
    other than 0 under torchrun: rank 0 records the one run).

    Bad input fails before a run is recorded (``preflight``). Ctrl-C cancels: the loop saves a
    checkpoint and the summary is ``{"run_id", "cancelled": True, "checkpoint", "steps", "out_dir"}``;
    any other error marks the run failed and is re-raised (its checkpoints stay for ``--resume``).
    """
    return FineTuneRun(spec, on_read=on_read, on_note=on_note).in_process(echo=echo, store_path=store_path)
