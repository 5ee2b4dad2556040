"""The one recorder of long runs (pre-training, fine-tuning, the tuned lens), whichever front end starts them.

A kind subclasses ``LongRun`` beside its spec and fills in what is its own: the columns the runs browser
shows, the checks before a run is recorded (``preflight``), the body (``body``, or ``job``: the training loop
as a job generator, its events going to ``report``), and what a finished run leaves (``final_metrics``,
``artifacts``, ``provenance``). The base gives the rest once, the same for every kind:

- ``in_process(echo=..., store_path=...)``: the CLI's way (and torchrun's: the ranks other than 0 train
  unrecorded and return None), recorded like a lane job, Ctrl-C as a clean cancel;
- ``lane_job(ctx, **spec)`` (a classmethod; a kind exposes it as its long-run lane target) and
  ``submit(lane)``: the long-run lane, the runs browser's "run again" and resume;
- ``window_job(store_path)``: the window's interactive lane, on a model already loaded; Cancel lets the loop
  finish its step and save a checkpoint before the run is marked cancelled;
- ``record_outputs(ctx, summary)``: the final numbers at the last step, the artifacts, the provenance.

``StoreReporter`` turns the training loop's events into run-store rows: the planned length (``StepsPlanned``,
the run's ``total_steps``, what "step k of n" reads), ``loss, lr, grad_norm, tokens_per_s``
per logged step, ``validation_loss, perplexity`` (and the objective's or task's own numbers) per evaluation,
and each checkpoint as an artifact.
"""

from __future__ import annotations

import contextvars
import os
import signal
import threading
import time
from typing import Any, Callable, ClassVar, Generator

from lm_workbench.engine.errors import Cancelled
from lm_workbench.engine.maths.undefined import shown
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, Progress, drive
from lm_workbench.runs.run_context import RunContext, create_queued_run, recorded_run

INTERRUPTED = "interrupted (Ctrl-C)"


def distributed_rank() -> tuple[int, int]:
    """(rank, world size) from torchrun's environment; (0, 1) when not under torchrun."""
    return int(os.environ.get("RANK", "0") or 0), int(os.environ.get("WORLD_SIZE", "1") or 1)


def _number(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


# Who else sees a run's events as they come (the Python API's progress bar: ``lm_workbench.api.progress``); the
# store's records do not depend on it.
PROGRESS_OBSERVER: contextvars.ContextVar[Callable[[Any], None] | None] = contextvars.ContextVar(
    "progress_observer", default=None)


class StoreReporter:
    """Records the loop's events for one run; ``echo`` (optional) also gets a line per event."""

    def __init__(self, ctx: RunContext, echo: Callable[[str], None] | None = None) -> None:
        self.ctx = ctx
        self.echo = echo
        self.checkpoints: list[tuple[int, str]] = []  # (step, path) of every checkpoint saved
        self.total_steps: int | None = None  # the loop's planned steps, recorded on the run (``StepsPlanned``)
        self._last_progress = 0.0

    def __call__(self, event: Any) -> None:
        from lm_workbench.engine.training.events import CheckpointSaved, EvalMetrics, StepMetrics, StepsPlanned

        observer = PROGRESS_OBSERVER.get()
        if observer is not None:  # the Python API's progress bar
            observer(event)

        if isinstance(event, StepsPlanned):
            if event.total != self.total_steps:
                self.total_steps = int(event.total)
                self.ctx.set_total_steps(self.total_steps)
        elif isinstance(event, StepMetrics):
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
            extra += "".join(f", {k} not defined" for k, v in (event.extra or {}).items() if v is None)
            self._say(f"step {event.step}: validation loss {shown(event.validation_loss)}{extra}")
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


class _TokenEvent:
    """A cancel token seen as the event ``recorded_run`` expects."""

    def __init__(self, token: CancelToken) -> None:
        self.token = token

    def is_set(self) -> bool:
        return bool(self.token.cancelled)

    def set(self) -> None:
        self.token.cancel()


class LongRun:
    """A kind of long run; subclass beside the kind's spec (see the module docstring)."""

    kind: ClassVar[str]  # the store's kind column
    Spec: ClassVar[type]  # its RunSpec
    Reporter: ClassVar[type[StoreReporter]] = StoreReporter

    def __init__(self, spec: Any, loaded: Any = None) -> None:
        self.spec = spec
        self.loaded = loaded  # the model already loaded (the window, the CLI), or None: ``load`` loads it

    # -- what each kind fills in ----------------------------------------------------------------------
    def columns(self) -> dict[str, Any]:
        """The runs browser's ``name``, ``model`` and ``method`` columns."""
        raise NotImplementedError

    def preflight(self) -> None:
        """Bad input fails here, before a run is recorded (default: the spec's cheap checks)."""
        self.spec.check()

    on_event: Callable[[Any], None] | None = None  # hears ``job``'s progress when ``body`` drives it

    def body(self, ctx: RunContext, report: StoreReporter) -> dict[str, Any]:
        """The run's work (the loop's cancel token is ``ctx``, its events go to ``report``); returns the summary.
        A kind fills in this or ``job`` (``job`` driven here, its events to ``on_event``)."""
        return drive(self.job(ctx, report), self.on_event)

    def job(self, ctx: RunContext, report: StoreReporter) -> Generator[Any, None, dict[str, Any]]:
        """The body as a job generator (what the window drives, with progress); default: ``body`` in one go."""
        return self.body(ctx, report)
        yield  # a generator

    def final_metrics(self, summary: dict[str, Any]) -> dict[str, float]:
        """The finished run's final numbers, logged at its last step."""
        return {}

    def last_step(self, summary: dict[str, Any]) -> int:
        return int(summary.get("steps", 0) or 0)

    def artifacts(self, summary: dict[str, Any]) -> list[tuple[str, str, str]]:
        """(name, kind, path) of each file or folder the finished run leaves."""
        return []

    def provenance(self, summary: dict[str, Any]) -> dict[str, Any] | None:
        """What produced the run (``lm_workbench.runs.provenance.collect_provenance``), or None."""
        return None

    def cancelled_summary(self, run_id: int, reporter: StoreReporter | None) -> dict[str, Any]:
        """What a cancelled run returns: its newest checkpoint (the loop saves one before it stops)."""
        steps, last = reporter.checkpoints[-1] if reporter and reporter.checkpoints else (None, None)
        out = {"run_id": run_id, "cancelled": True, "checkpoint": last, "steps": steps}
        if getattr(self.spec, "out_dir", None) is not None:
            out["out_dir"] = self.spec.out_dir
        return out

    def finished_summary(self, run_id: int, summary: dict[str, Any]) -> dict[str, Any]:
        """What ``in_process`` and ``window_job`` return for a finished run (default: the summary as it is)."""
        return summary

    # -- given once, for every kind ------------------------------------------------------------------
    def load(self) -> Any:
        """The model the spec names (``spec.model``), loaded with the user's settings, unless one was given."""
        if self.loaded is None:
            from lm_workbench.models.loader import load_model

            self.loaded = load_model(self.spec.model)
        return self.loaded

    def run_body(self, ctx: RunContext, report: StoreReporter) -> dict[str, Any]:
        """The body run to its end, then its outputs recorded."""
        summary = self.body(ctx, report)
        self.record_outputs(ctx, summary)
        return summary

    def record_outputs(self, ctx: RunContext, summary: dict[str, Any]) -> None:
        final = {k: float(v) for k, v in self.final_metrics(summary).items() if _number(v) is not None}
        if final:
            ctx.log_dict(self.last_step(summary), final)
        for name, kind, path in self.artifacts(summary):
            ctx.add_artifact(name, kind, path)
        provenance = self.provenance(summary)
        if provenance is not None:
            ctx.store.set_provenance(ctx.run_id, provenance)

    def _queued(self, store: Any, pid: int | None = None) -> int:
        return create_queued_run(store, self.kind, params=self.spec.to_dict(), cli_command=self.spec.cli_command(),
                                 pid=pid, **self.columns())

    @classmethod
    def lane_job(cls, ctx: RunContext, **spec_dict: Any) -> dict[str, Any]:
        """The long-run lane's job (in its spawned child), recorded in the lane's run ``ctx``."""
        run = cls(cls.Spec.from_dict(spec_dict))
        return run.run_body(ctx, cls.Reporter(ctx))

    def submit(self, lane: Any, target: str) -> int:
        """Queue the run on a ``LongRunLane`` (the spec's cheap checks first); returns the run id."""
        self.spec.check()
        params = self.spec.to_dict()
        return lane.submit(target, params, kind=self.kind, params=params, cli_command=self.spec.cli_command(),
                           **self.columns())

    def in_process(self, *, echo: Callable[[str], None] | None = None, store_path: Any = None
                   ) -> dict[str, Any] | None:
        """Run in this process, recorded like a lane job (running with this pid, a heartbeat, finished /
        cancelled / failed); the summary, a cancelled summary on Ctrl-C, None on torchrun's other ranks."""
        from lm_workbench.paths import runs_db_path
        from lm_workbench.store import RunStore

        self.preflight()
        cancel = threading.Event()
        if distributed_rank()[0] != 0:  # under torchrun: the other ranks train; rank 0 records the one run
            with SigintCancels(cancel):
                self.body(_Unrecorded(cancel), _NoReport())
            return None
        reporter: StoreReporter | None = None
        store = RunStore(store_path or runs_db_path())
        try:
            run_id = self._queued(store)
            try:
                with SigintCancels(cancel), recorded_run(store, run_id, cancel, cancelled_note=INTERRUPTED,
                                                         interrupted_note=INTERRUPTED) as ctx:
                    reporter = self.Reporter(ctx, echo)
                    return self.finished_summary(run_id, self.run_body(ctx, reporter))
            except (Cancelled, KeyboardInterrupt):
                return self.cancelled_summary(run_id, reporter)
        finally:
            store.close()

    def window_job(self, store_path: Any) -> Callable[[CancelToken], Generator[Any, None, Any]]:
        """A window job, ``fn(cancel)``: the run recorded in the store at ``store_path``; returns its summary
        (None when cancelled: the run is recorded as cancelled after the loop saved its checkpoint)."""
        def job(cancel: CancelToken) -> Generator[Any, None, Any]:
            from lm_workbench.store import RunStore

            self.preflight()
            store = RunStore(store_path)
            closing = False
            try:
                run_id = self._queued(store)
                with recorded_run(store, run_id, _TokenEvent(cancel), cancelled_note="cancelled") as ctx:
                    loop = self.job(ctx, self.Reporter(ctx))
                    while True:  # not ``yield from``: closing this job must not close the loop before it saves
                        try:
                            event = next(loop)
                        except StopIteration as stop:
                            summary = stop.value
                            break
                        try:
                            yield event
                        except GeneratorExit:  # the lane stopped driving: Cancel (or the window closing)
                            if not cancel.cancelled:
                                loop.close()
                                raise
                            closing = True
                            for _ in loop:  # the loop sees the cancel at its next step: checkpoint, Cancelled
                                pass
                            raise Cancelled() from None
                    self.record_outputs(ctx, summary)
                    return self.finished_summary(run_id, summary)
            except Cancelled:
                if not closing:
                    raise
            finally:
                store.close()
            return None

        return job


class _Unrecorded(CancelToken):
    """The cancel token torchrun's other ranks train with (no run store)."""

    run_id = None


class _NoReport:
    checkpoints: list[tuple[int, str]] = []

    def __call__(self, event: Any) -> None:
        pass


__all__ = ["INTERRUPTED", "LongRun", "NEVER_CANCELLED", "SigintCancels", "StoreReporter",
           "distributed_rank"]
