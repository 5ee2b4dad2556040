"""An SAE training as a recorded run (kind ``sae``): ``SaeTrainRun``, a ``LongRun``
(``lm_workbench.runs.recorder``): the CLI's ``in_process``, the window's ``window_job``, the long-run lane's
``sae_lane_job``. Per logged step the store gets ``loss`` and the curves ``mse``, ``l0``, ``dead_fraction``; at
the end the final numbers, the SAE folder as an artifact and the provenance."""

from __future__ import annotations

from typing import Any, Callable, Generator

from lm_workbench.engine.progress import CancelToken
from lm_workbench.runs.kinds import RunKind, spec_command
from lm_workbench.runs.recorder import LongRun
from lm_workbench.sae.train import KIND, resolved, sae_train_job
from lm_workbench.sae.spec import SaeTrainSpec

SAE_TRAIN = RunKind(kind=KIND, target="lm_workbench.sae.runs:sae_lane_job", title="SAE",
                    command=spec_command(SaeTrainSpec))  # resume: `sae train ... --resume` (same --out)


class SaeTrainRun(LongRun):
    kind = KIND
    Spec = SaeTrainSpec

    def __init__(self, spec: SaeTrainSpec, loaded: Any = None,
                 on_event: Callable[[Any], None] | None = None) -> None:
        super().__init__(spec, loaded)
        self.on_event = on_event

    def columns(self) -> dict[str, Any]:
        return {"name": self.spec.title(), "model": self.spec.model, "method": f"SAE ({self.spec.kind})"}

    def preflight(self) -> None:
        self.spec = resolved(self.spec, self.load())

    def job(self, ctx: Any, report: Any) -> Generator[Any, None, dict[str, Any]]:
        return (yield from sae_train_job(self.spec, self.load(), cancel=ctx, report=report))

    def final_metrics(self, summary: dict[str, Any]) -> dict[str, float]:
        return {f"final_{k}": v for k, v in summary["final"].items()} | {"wall_s": summary["wall_s"]}

    def artifacts(self, summary: dict[str, Any]) -> list[tuple[str, str, str]]:
        return [("SAE", "model", summary["out_dir"])]

    def provenance(self, summary: dict[str, Any]) -> dict[str, Any]:
        from lm_workbench.runs.provenance import collect_provenance

        return collect_provenance(device=str(self.load().info.device), dtype="float32", seed=self.spec.seed,
                                  model_folder=summary.get("model_folder"), data_files=[self.spec.corpus],
                                  cli_command=self.spec.cli_command())

    def finished_summary(self, run_id: int, summary: dict[str, Any]) -> dict[str, Any]:
        return {"run_id": run_id, **summary}


def run_recorded(spec: SaeTrainSpec, loaded: Any, *, echo: Callable[[str], None] | None = None,
                 store_path: Any = None) -> dict[str, Any] | None:
    """Train ``spec`` on ``loaded`` in this process as a recorded run (Ctrl-C: a checkpoint, then cancelled)."""
    return SaeTrainRun(spec, loaded).in_process(echo=echo, store_path=store_path)


def window_job(spec: SaeTrainSpec, loaded: Any, store_path: Any) -> Callable[[CancelToken], Generator]:
    return SaeTrainRun(spec, loaded).window_job(store_path)


sae_lane_job = SaeTrainRun.lane_job
