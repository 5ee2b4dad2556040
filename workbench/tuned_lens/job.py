"""A tuned-lens training as a recorded run (kind ``tuned-lens``), from each front end.

- ``run_recorded(spec, loaded, echo=...)``: the CLI's way, in this process, recorded like a lane job
  (``record_in_process``: heartbeat, Ctrl-C cancels; the loop saves a checkpoint first).
- ``window_job(spec, loaded, store_path)``: the Lens view's job for ``ctx.jobs.run``: the same run recorded
  from the window's interactive lane, on the model already loaded; the job's cancel token is the loop's (when
  the lane stops driving it on Cancel, the loop still finishes its step and saves a checkpoint, and the run is
  recorded as cancelled).
- ``tuned_lens_job(ctx, **spec)``: the long-run lane's target (the runs browser's "run again"): loads the
  model the spec names in the lane's child.

Each records the loop's metrics through ``StoreReporter`` (loss per logged step, validation loss = the
summed KL per evaluation), then the final numbers at the last step (``mean_kl_logit``,
``mean_kl_tuned_before``, ``mean_kl_tuned``), the translators folder and summary as artifacts, and the
provenance.
"""

from __future__ import annotations

from typing import Any, Callable, Generator

from engine.errors import Cancelled
from engine.progress import CancelToken, drive
from workbench.lanes.run_context import RunContext, recorded_run
from workbench.pretrain.recording import StoreReporter
from workbench.tuned_lens.run import KIND, resolved, run_steps
from workbench.tuned_lens.spec import TunedLensSpec


def record_outputs(ctx: RunContext, summary: dict[str, Any]) -> None:
    """The run's final numbers (at its last step), its translators folder and summary, its provenance."""
    from workbench.runs.provenance import collect_provenance

    mean = summary["mean_kl"]
    ctx.log_dict(int(summary["steps"]), {"mean_kl_logit": float(mean["logit"]),
                                         "mean_kl_tuned_before": float(mean["tuned_before"]),
                                         "mean_kl_tuned": float(mean["tuned_after"]), "wall_s": float(summary["wall_s"])})
    ctx.add_artifact("tuned lens", "model", summary["out_dir"])
    ctx.add_artifact("summary", "summary", summary["summary_path"])
    spec = TunedLensSpec.from_dict(summary["spec"])
    ctx.store.set_provenance(ctx.run_id, collect_provenance(
        device=summary.get("device") or "", dtype="float32", seed=spec.config().seed,
        model_folder=summary.get("model_folder"), data_files=list(spec.corpus), cli_command=spec.cli_command()))


def _columns(spec: TunedLensSpec) -> dict[str, Any]:
    return {"name": spec.title(), "model": spec.model, "method": "tuned lens", "params": spec.to_dict(),
            "cli_command": spec.cli_command()}


def run_recorded(spec: TunedLensSpec, loaded: Any, *, echo: Callable[[str], None] | None = None,
                 on_event: Callable[[Any], None] | None = None, store_path: Any = None) -> dict[str, Any]:
    """Run ``spec`` on ``loaded`` in this process as a recorded run; returns the summary with its ``run_id``
    (Ctrl-C: ``{"run_id", "cancelled": True, "checkpoint", "steps", "out_dir"}``)."""
    from workbench.lanes.in_process import record_in_process
    from workbench.paths import runs_db_path
    from workbench.store import RunStore

    spec = resolved(spec, loaded)  # bad input fails here, before a run is recorded
    reporter: StoreReporter | None = None

    def work(ctx: RunContext) -> dict[str, Any]:
        nonlocal reporter
        reporter = StoreReporter(ctx, echo)
        summary = drive(run_steps(spec, loaded, cancel=ctx, report=reporter), on_event)
        record_outputs(ctx, summary)
        return {"run_id": ctx.run_id, **summary}

    def when_cancelled(run_id: int) -> dict[str, Any]:
        steps, last = reporter.checkpoints[-1] if reporter and reporter.checkpoints else (None, None)
        return {"run_id": run_id, "cancelled": True, "checkpoint": last, "steps": steps, "out_dir": spec.out_dir}

    columns = _columns(spec)
    return record_in_process(RunStore(store_path or runs_db_path()), kind=KIND, work=work,
                             when_cancelled=when_cancelled, **columns)


class _TokenEvent:
    """A cancel token seen as the event ``recorded_run`` expects."""

    def __init__(self, token: CancelToken) -> None:
        self.token = token

    def is_set(self) -> bool:
        return bool(self.token.cancelled)

    def set(self) -> None:
        self.token.cancel()


def window_job(spec: TunedLensSpec, loaded: Any, store_path: Any
               ) -> Callable[[CancelToken], Generator[Any, None, dict[str, Any]]]:
    """A window job, ``fn(cancel)``: the run recorded in the store at ``store_path``; returns the summary."""
    def job(cancel: CancelToken) -> Generator[Any, None, dict[str, Any]]:
        from workbench.store import RunStore

        checked = resolved(spec, loaded)
        store = RunStore(store_path)
        closing = False
        try:
            run_id = store.create_run(KIND, status="queued", **_columns(checked))
            with recorded_run(store, run_id, _TokenEvent(cancel), cancelled_note="cancelled") as ctx:
                steps = run_steps(checked, loaded, cancel=cancel, report=StoreReporter(ctx))
                while True:  # not ``yield from``: closing this job must not close the loop before it saves
                    try:
                        event = next(steps)
                    except StopIteration as stop:
                        summary = stop.value
                        break
                    try:
                        yield event
                    except GeneratorExit:  # the lane stopped driving: Cancel (or the window closing)
                        if not cancel.cancelled:
                            steps.close()
                            raise
                        closing = True
                        for _ in steps:  # the loop sees the cancel at its next step: checkpoint, then Cancelled
                            pass
                        raise Cancelled() from None
                record_outputs(ctx, summary)
                return {"run_id": run_id, **summary}
        except Cancelled:
            if not closing:
                raise
        finally:
            store.close()
        return None

    return job


def tuned_lens_job(ctx: RunContext, **spec_dict: Any) -> dict[str, Any]:
    """The long-run lane's job: load the model ``spec_dict`` names and run it, recorded in the lane's run."""
    from workbench.runs.execute import load_model

    spec = TunedLensSpec.from_dict(spec_dict)
    summary = drive(run_steps(spec, load_model(spec.model), cancel=ctx, report=StoreReporter(ctx)))
    record_outputs(ctx, summary)
    return summary


def submit_tuned_lens(lane: Any, spec: TunedLensSpec) -> int:
    """Queue ``spec`` on a ``LongRunLane``; returns the run id."""
    from workbench.runs.kinds import TUNED_LENS

    spec.check()
    columns = _columns(spec)
    params = columns.pop("params")
    return lane.submit(TUNED_LENS.target, params, kind=KIND, params=params, **columns)


__all__ = ["KIND", "record_outputs", "run_recorded", "submit_tuned_lens", "tuned_lens_job", "window_job"]
