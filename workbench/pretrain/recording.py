"""Writing a pre-training run into the run store: metrics, artifacts, and in-process runs.

``StoreReporter`` turns the training loop's events into rows of the run store
through a ``RunContext`` (the long-run job's, or one built here), with the
metric names the training view and the runs browser plot: ``loss, lr,
grad_norm, tokens_per_s`` per logged step, ``validation_loss, perplexity``
(+ ``masked_accuracy`` for encoders) per evaluation, plus the objective's own
numbers. ``run_recorded`` is the CLI's (and torchrun's) way to run: in this
process, but recorded like a lane job, with a heartbeat and Ctrl-C as cancel.
Under torchrun only rank 0 touches the store.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any, Callable

from engine.progress import Progress
from workbench.lanes.in_process import EventToken, SigintCancels, record_in_process
from workbench.lanes.run_context import RunContext
from workbench.pretrain.spec import PretrainSpec

KIND = "pretrain"


def distributed_rank() -> tuple[int, int]:
    """(rank, world size) from torchrun's environment; (0, 1) when not under torchrun."""
    return int(os.environ.get("RANK", "0") or 0), int(os.environ.get("WORLD_SIZE", "1") or 1)


def _number(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


class StoreReporter:
    """Records the loop's events for one run; ``echo`` (optional) also gets a line per event."""

    def __init__(self, ctx: RunContext, echo: Callable[[str], None] | None = None) -> None:
        self.ctx = ctx
        self.echo = echo
        self.checkpoints: list[tuple[int, str]] = []  # (step, path) of every checkpoint saved
        self._last_progress = 0.0

    def __call__(self, event: Any) -> None:
        from engine.training.events import CheckpointSaved, EvalMetrics, StepMetrics

        if isinstance(event, StepMetrics):
            values = {"loss": event.loss, "lr": event.lr, "grad_norm": event.grad_norm,
                      "tokens_per_s": event.tokens_per_s}
            values |= self._extras(event.extra, skip=values)
            self.ctx.log_dict(event.step, values)
            self._say(f"step {event.step}: loss {event.loss:.4f}, lr {event.lr:.2e}, "
                      f"{event.tokens_per_s:.0f} tokens/s")
        elif isinstance(event, EvalMetrics):
            values = {"validation_loss": event.validation_loss, "perplexity": event.perplexity}
            values |= self._extras(event.extra, skip=values)
            self.ctx.log_dict(event.step, values)
            extra = "".join(f", {k} {v:.4f}" for k, v in values.items() if k not in ("validation_loss", "perplexity"))
            self._say(f"step {event.step}: validation loss {event.validation_loss:.4f}{extra}")
        elif isinstance(event, CheckpointSaved):
            self.ctx.add_artifact(f"checkpoint step {event.step}", "checkpoint", str(event.path))
            self.checkpoints.append((int(event.step), str(event.path)))
            self._say(f"step {event.step}: checkpoint {event.path}")
        elif isinstance(event, Progress) and event.message and self.echo is not None:
            now = time.monotonic()
            if now - self._last_progress > 5.0 or event.total <= 0:
                self._last_progress = now
                self._say(event.message)

    @staticmethod
    def _extras(extra: dict, skip: dict) -> dict[str, float]:
        out = {}
        for key, value in (extra or {}).items():
            number = _number(value)
            if key not in skip and number is not None:
                out[str(key)] = number
        return out

    def _say(self, line: str) -> None:
        if self.echo is not None:
            self.echo(line)


def record_outputs(ctx: RunContext, summary: dict[str, Any]) -> None:
    """The finished run's final numbers (at its last step) and its model and summary files."""
    final = {k: summary[k] for k in ("final_loss", "unigram_entropy", "parameters")
             if _number(summary.get(k)) is not None}
    ctx.log_dict(int(summary.get("steps", 0)), final)
    ctx.add_artifact("model", "model", summary["model_dir"])
    ctx.add_artifact("summary", "summary", summary["summary_path"])
    ctx.store.set_provenance(ctx.run_id, run_provenance(summary))


def _objective_source(name: str) -> str:
    """The distribution (and version) that registers objective ``name``, or where else it came from."""
    from importlib.metadata import entry_points

    for ep in entry_points(group="lm_workbench.objectives"):
        if ep.name == name and ep.dist is not None:
            return f"{ep.dist.name} {ep.dist.version}"
    return "plugins folder"


def run_provenance(summary: dict[str, Any]) -> dict[str, Any]:
    """What produced a finished pre-training run: versions, device, seed, model and data fingerprints."""
    from workbench.runs.provenance import collect_provenance

    spec = summary.get("spec") or {}
    return collect_provenance(
        device=summary.get("device") or "", dtype=summary.get("precision") or "",
        seed=(spec.get("training") or {}).get("seed", 0), model_folder=summary["model_dir"],
        data_files=[p for p in spec.get("corpus", []) if p and Path(p).is_file()],
        plugin=(str(summary.get("objective")), _objective_source(str(summary.get("objective")))),
        cli_command=PretrainSpec.from_dict(spec).cli_command() if spec else None)


def run_recorded(spec: PretrainSpec, *, echo: Callable[[str], None] | None = None,
                 store_path: Any = None) -> dict[str, Any] | None:
    """Run ``spec`` in this process as a recorded ``pretrain`` run; the summary (None on ranks other than 0).

    The run is created as running with this pid, heartbeats every 2 s,
    and ends finished, cancelled (Ctrl-C: the loop saves a checkpoint first;
    the summary then has ``cancelled: True``) or failed (the error re-raised).
    """
    from workbench.paths import runs_db_path
    from workbench.pretrain.run import preflight, run_pretrain
    from workbench.store import RunStore

    preflight(spec)  # bad input fails here, before a run is recorded
    rank, _world = distributed_rank()
    cancel = threading.Event()
    if rank != 0:
        with SigintCancels(cancel):
            run_pretrain(spec, cancel=EventToken(cancel), report=lambda event: None)
        return None
    reporter: StoreReporter | None = None

    def work(ctx: RunContext) -> dict[str, Any]:
        nonlocal reporter
        reporter = StoreReporter(ctx, echo)
        summary = run_pretrain(spec, cancel=ctx, report=reporter, run_id=ctx.run_id)
        record_outputs(ctx, summary)
        return summary

    def when_cancelled(run_id: int) -> dict[str, Any]:  # the loop saved a checkpoint first
        steps, last = reporter.checkpoints[-1] if reporter and reporter.checkpoints else (None, None)
        return {"run_id": run_id, "cancelled": True, "checkpoint": last, "steps": steps}

    return record_in_process(RunStore(store_path or runs_db_path()), kind=KIND, name=spec.title(),
                             model=f"{spec.family}-{spec.preset}", method=spec.objective, params=spec.to_dict(),
                             cli_command=spec.cli_command(), work=work, when_cancelled=when_cancelled)
