"""Fine-tuning as a recorded run: the long-run lane's job and the CLI's in-process equivalent.

``finetune_job`` (target ``"workbench.finetune.job:finetune_job"``) runs in the lane's spawned
child with the run's ``RunContext``: the job's events become run-store metrics through
``FineTuneReporter`` (``trainable_parameters, total_parameters, trainable_percent`` at step 0 before
training; ``loss, lr, grad_norm, tokens_per_s`` per logged step; ``validation_loss, perplexity`` and
the task's metrics, e.g. ``accuracy, f1, mcc``, per evaluation; at the last step ``wall_s,
peak_memory_mb, adapter_bytes`` and the counts again), the context's
cancel flag is the loop's cancel token. ``submit_finetune(lane, spec)`` queues a spec and returns
the run id. ``run_recorded(spec)`` is the CLI's way: in this process, recorded the same way, with a
heartbeat and Ctrl-C as cancel.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Callable

from workbench.finetune.spec import FineTuneSpec
from workbench.lanes.in_process import EventToken, SigintCancels, record_in_process
from workbench.lanes.run_context import RunContext
from workbench.pretrain.recording import StoreReporter, distributed_rank
from workbench.runs.kinds import FINETUNE

KIND = FINETUNE.kind
FINAL_METRICS = ("trainable_parameters", "total_parameters", "trainable_percent", "wall_s", "peak_memory_mb",
                 "adapter_bytes")


def model_label(spec: FineTuneSpec) -> str:
    return spec.model or "minilm"


def record_outputs(ctx: RunContext, summary: dict[str, Any]) -> None:
    """The run's final numbers (at its last step), its output files and its provenance."""
    from workbench.runs.provenance import collect_provenance

    final = {k: float(summary[k]) for k in FINAL_METRICS if summary.get(k) is not None}
    ctx.log_dict(int(summary.get("steps", 0)), final)
    ctx.add_artifact("adapter", "model", summary["adapter_dir"])
    ctx.add_artifact("summary", "summary", summary["summary_path"])
    spec = FineTuneSpec.from_dict(summary["spec"])
    files = [p for p in (spec.train, spec.validation) if p and Path(p).is_file()]
    ctx.store.set_provenance(ctx.run_id, collect_provenance(
        device=summary.get("device") or "", dtype="float32", seed=spec.seed, model_folder=summary.get("base_model"),
        data_files=files, plugin=(spec.method, method_source(spec.method)), cli_command=spec.cli_command()))


class FineTuneReporter(StoreReporter):
    """``StoreReporter`` plus the trainable/total parameter counts, logged at step 0 before training."""

    def __call__(self, event: Any) -> None:
        from engine.finetune.job import ParametersCounted

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


def finetune_job(ctx: RunContext, **spec_dict: Any) -> dict[str, Any]:
    """Run the fine-tuning that ``spec_dict`` (``FineTuneSpec.to_dict()``) describes; return its summary."""
    from workbench.finetune.run import run_finetune

    spec = FineTuneSpec.from_dict(spec_dict)
    summary = run_finetune(spec, cancel=ctx, report=FineTuneReporter(ctx), run_id=ctx.run_id)
    record_outputs(ctx, summary)
    return summary


def submit_finetune(lane: Any, spec: FineTuneSpec) -> int:
    """Queue ``spec`` on a ``LongRunLane``; returns the run id. The spec is checked first (cheap)."""
    spec.check()
    params = spec.to_dict()
    return lane.submit(FINETUNE.target, params, kind=KIND, name=spec.title(), model=model_label(spec),
                       method=spec.method, params=params, cli_command=spec.cli_command())


def run_recorded(spec: FineTuneSpec, *, echo: Callable[[str], None] | None = None,
                 store_path: Any = None, on_read: Callable[[Any], None] | None = None) -> dict[str, Any] | None:
    """Run ``spec`` in this process as a recorded ``finetune`` run; returns the summary (None on the ranks
    other than 0 under torchrun: rank 0 records the one run).

    Bad input fails before a run is recorded (``preflight``). Ctrl-C cancels: the loop saves a
    checkpoint and the summary is ``{"run_id", "cancelled": True, "checkpoint", "steps", "out_dir"}``;
    any other error marks the run failed and is re-raised (its checkpoints stay for ``--resume``).
    ``on_read`` hears each data file's ``ReadReport`` (rows read and skipped) before training starts.
    """
    from workbench.finetune.run import preflight, run_finetune
    from workbench.paths import runs_db_path
    from workbench.store import RunStore

    checked = preflight(spec)
    if on_read is not None:
        for report in checked.data.reads.values():
            on_read(report)
    rank, _world = distributed_rank()
    if rank != 0:  # under torchrun: the other ranks train; rank 0 records the one run
        cancel = threading.Event()
        with SigintCancels(cancel):
            run_finetune(spec, cancel=EventToken(cancel))
        return None
    reporter: FineTuneReporter | None = None

    def work(ctx: RunContext) -> dict[str, Any]:
        nonlocal reporter
        reporter = FineTuneReporter(ctx, echo)
        summary = run_finetune(spec, cancel=ctx, report=reporter, run_id=ctx.run_id)
        record_outputs(ctx, summary)
        return summary

    def when_cancelled(run_id: int) -> dict[str, Any]:  # the loop saved a checkpoint first
        steps, last = reporter.checkpoints[-1] if reporter and reporter.checkpoints else (None, None)
        return {"run_id": run_id, "cancelled": True, "checkpoint": last, "steps": steps, "out_dir": spec.out_dir}

    return record_in_process(RunStore(store_path or runs_db_path()), kind=KIND, name=spec.title(),
                             model=model_label(spec), method=spec.method, params=spec.to_dict(),
                             cli_command=spec.cli_command(), work=work, when_cancelled=when_cancelled)
