"""A tuned-lens training as a recorded run (kind ``tuned-lens``): ``TunedLensRun``, a ``LongRun``
(``lm_workbench.runs.recorder``), recorded the same way from each front end:

- ``run_recorded(spec, loaded, echo=...)``: the CLI's way, in this process (heartbeat, Ctrl-C cancels; the loop
  saves a checkpoint first);
- ``window_job(spec, loaded, store_path, reuse=...)``: the Lens view's job for ``ctx.jobs.run``, on the model
  already loaded (Cancel lets the loop finish its step and save a checkpoint; the run is recorded as cancelled);
  ``reuse`` (a guide page or lecture step): the run recorded for the same key is shown if its translators are
  still there (``lm_workbench.lens.reuse``);
- ``tuned_lens_lane_job(ctx, **spec)``: the long-run lane's target (the runs browser's "run again"): loads the
  model the spec names in the lane's child.

The loop's metrics go through the recorder's ``StoreReporter`` (loss per logged step, validation loss = the
summed KL per evaluation), then the final numbers at the last step (``mean_kl_logit``,
``mean_kl_tuned_before``, ``mean_kl_tuned``, ``wall_s``), the translators folder and summary as artifacts, and
the provenance.
"""

from __future__ import annotations

from typing import Any, Callable, Generator

from lm_workbench.engine.progress import CancelToken
from lm_workbench.runs.kinds import RunKind
from lm_workbench.runs.recorder import LongRun
from lm_workbench.lens.train import KIND, resolved, tuned_lens_job
from lm_workbench.lens.spec import TunedLensSpec


def _tuned_lens_command(params: dict[str, Any]) -> str:
    return TunedLensSpec.from_dict(params).cli_command()


TUNED_LENS = RunKind(kind=KIND, target="lm_workbench.lens.runs:tuned_lens_lane_job", title="Tuned lens",
                     command=_tuned_lens_command)


class TunedLensRun(LongRun):
    kind = KIND
    Spec = TunedLensSpec

    def __init__(self, spec: TunedLensSpec, loaded: Any = None,
                 on_event: Callable[[Any], None] | None = None) -> None:
        super().__init__(spec, loaded)
        self.on_event = on_event  # hears the loop's progress when run in this process

    def columns(self) -> dict[str, Any]:
        return {"name": self.spec.title(), "model": self.spec.model, "method": "tuned lens"}

    def preflight(self) -> None:
        self.spec = resolved(self.spec, self.load())

    def job(self, ctx: Any, report: Any) -> Generator[Any, None, dict[str, Any]]:
        return (yield from tuned_lens_job(self.spec, self.load(), cancel=ctx, report=report))

    def final_metrics(self, summary: dict[str, Any]) -> dict[str, float]:
        mean = summary["mean_kl"]
        return {"mean_kl_logit": mean["logit"], "mean_kl_tuned_before": mean["tuned_before"],
                "mean_kl_tuned": mean["tuned_after"], "wall_s": summary["wall_s"]}

    def artifacts(self, summary: dict[str, Any]) -> list[tuple[str, str, str]]:
        return [("tuned lens", "model", summary["out_dir"]), ("summary", "summary", summary["summary_path"])]

    def provenance(self, summary: dict[str, Any]) -> dict[str, Any]:
        from lm_workbench.runs.provenance import collect_provenance

        spec = TunedLensSpec.from_dict(summary["spec"])
        return collect_provenance(device=summary.get("device") or "", dtype="float32", seed=spec.config().seed,
                                  model_folder=summary.get("model_folder"), data_files=list(spec.corpus),
                                  cli_command=spec.cli_command())

    def finished_summary(self, run_id: int, summary: dict[str, Any]) -> dict[str, Any]:
        return {"run_id": run_id, **summary}

    def recalled(self, store: Any, found: dict[str, Any]) -> dict[str, Any] | None:
        """The summary of the finished run ``found`` (its key matched) when its translators are still where it
        wrote them, or None (deleted, or overwritten by a later training: the folder's summary is another run's)."""
        from lm_workbench.lens.reuse import recorded_summary

        return recorded_summary(store, found, self.spec)


def run_recorded(spec: TunedLensSpec, loaded: Any, *, echo: Callable[[str], None] | None = None,
                 on_event: Callable[[Any], None] | None = None, store_path: Any = None) -> dict[str, Any]:
    """Run ``spec`` on ``loaded`` in this process as a recorded run; returns the summary with its ``run_id``
    (Ctrl-C: ``{"run_id", "cancelled": True, "checkpoint", "steps", "out_dir"}``)."""
    return TunedLensRun(spec, loaded, on_event).in_process(echo=echo, store_path=store_path)


def window_job(spec: TunedLensSpec, loaded: Any, store_path: Any, *, reuse: bool = False
               ) -> Callable[[CancelToken], Generator[Any, None, dict[str, Any]]]:
    """A window job, ``fn(cancel)``: the run recorded in the store at ``store_path``; returns the summary.

    ``reuse`` (a guide page or lecture step that trains on open): a finished run with the same reuse key whose
    translators are still there is shown instead (its summary, with ``reused_run``; nothing trained or recorded);
    every finished run carries the key (``lm_workbench.runs.long_reuse``), so the next visit finds it."""
    from lm_workbench.runs.long_reuse import reusing_window_job

    return reusing_window_job(TunedLensRun(spec, loaded), store_path, reuse=reuse)


tuned_lens_lane_job = TunedLensRun.lane_job


def submit_tuned_lens(lane: Any, spec: TunedLensSpec) -> int:
    """Queue ``spec`` on a ``LongRunLane``; returns the run id."""
    return TunedLensRun(spec).submit(lane, TUNED_LENS.target)


__all__ = ["KIND", "TUNED_LENS", "TunedLensRun", "run_recorded", "submit_tuned_lens", "tuned_lens_lane_job",
           "window_job"]
