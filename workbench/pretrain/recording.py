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
import signal
import threading
import time
from pathlib import Path
from typing import Any, Callable

from engine.errors import Cancelled
from engine.progress import Progress
from workbench.lanes.run_context import HeartbeatThread, RunContext
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
    from workbench.provenance import collect_provenance

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
    store = RunStore(store_path or runs_db_path())
    try:
        run_id = store.create_run(KIND, name=spec.title(), model=f"{spec.family}-{spec.preset}",
                                  method=spec.objective, params=spec.to_dict(), cli_command=spec.cli_command(),
                                  status="queued")
        store.start_run(run_id, pid=os.getpid())
        ctx = RunContext(run_id, store, cancel)
        reporter = StoreReporter(ctx, echo)
        beat = HeartbeatThread(store, run_id)
        beat.start()
        try:
            with SigintCancels(cancel):
                summary = run_pretrain(spec, cancel=ctx, report=reporter, run_id=run_id)
            record_outputs(ctx, summary)
        except (Cancelled, KeyboardInterrupt):
            store.finish_run(run_id, "cancelled", "interrupted (Ctrl-C)", if_status=("queued", "running"))
            steps, last = reporter.checkpoints[-1] if reporter.checkpoints else (None, None)
            return {"run_id": run_id, "cancelled": True, "checkpoint": last, "steps": steps}
        except BaseException as exc:
            store.finish_run(run_id, "failed", f"{type(exc).__name__}: {exc}", if_status=("queued", "running"))
            raise
        finally:
            beat.stop()
        store.finish_run(run_id, "finished", if_status=("queued", "running"))
        return summary
    finally:
        store.close()


class EventToken:
    """A ``threading.Event`` as the engine's cancel token."""

    def __init__(self, event: threading.Event) -> None:
        self.event = event

    @property
    def cancelled(self) -> bool:
        return self.event.is_set()

    def check(self) -> None:
        if self.event.is_set():
            raise Cancelled()


class SigintCancels:
    """While active, the first Ctrl-C sets ``event`` (a clean cancel); a second one interrupts at once."""

    def __init__(self, event: threading.Event) -> None:
        self.event = event
        self.previous: Any = None

    def _handle(self, signum: int, frame: Any) -> None:
        if self.event.is_set():
            raise KeyboardInterrupt
        self.event.set()

    def __enter__(self) -> "SigintCancels":
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)
