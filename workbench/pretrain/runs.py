"""A pre-training run as a ``LongRun`` (``lm_workbench.runs.recorder``): its run kind, its long-run lane target
(``"lm_workbench.pretrain.runs:pretrain_lane_job"``), its columns, its body and what it leaves.

The recorder records it the same way from every front end: the CLI and torchrun (``run_recorded``: in this
process, Ctrl-C as cancel; only rank 0 touches the store), the long-run lane (``pretrain_lane_job``, queued by ``submit_pretrain``) and
the runs browser's "run again" and resume. The loop's events become rows through the recorder's
``StoreReporter``: ``loss, lr, grad_norm, tokens_per_s`` per logged step, ``validation_loss, perplexity`` (+
``masked_accuracy`` for encoders) per evaluation, plus the objective's own numbers; at the end the final
numbers, the model and summary files and the provenance.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from lm_workbench.pretrain.spec import PretrainSpec
from lm_workbench.runs.kinds import RunKind
from lm_workbench.runs.recorder import LongRun, StoreReporter, distributed_rank  # noqa: F401 (distributed_rank: API)

KIND = "pretrain"


def _pretrain_command(params: dict[str, Any]) -> str:
    return PretrainSpec.from_dict(params).cli_command()


PRETRAIN = RunKind(kind=KIND, target="lm_workbench.pretrain.runs:pretrain_lane_job", title="Pre-training",
                   command=_pretrain_command, resumable=True)


class PretrainRun(LongRun):
    kind = KIND
    Spec = PretrainSpec

    def columns(self) -> dict[str, Any]:
        spec = self.spec
        return {"name": spec.title(), "model": f"{spec.family}-{spec.preset}", "method": spec.objective}

    def preflight(self) -> None:
        from lm_workbench.pretrain.train import preflight

        preflight(self.spec)

    def body(self, ctx: Any, report: Any) -> dict[str, Any]:
        from lm_workbench.pretrain.train import run_pretrain

        return run_pretrain(self.spec, cancel=ctx, report=report, run_id=ctx.run_id)

    def final_metrics(self, summary: dict[str, Any]) -> dict[str, float]:
        return {k: summary[k] for k in ("final_loss", "unigram_entropy", "parameters") if k in summary}

    def artifacts(self, summary: dict[str, Any]) -> list[tuple[str, str, str]]:
        return [("model", "model", summary["model_dir"]), ("summary", "summary", summary["summary_path"])]

    def provenance(self, summary: dict[str, Any]) -> dict[str, Any]:
        return run_provenance(summary)

    def cancelled_summary(self, run_id: int, reporter: Any) -> dict[str, Any]:
        out = super().cancelled_summary(run_id, reporter)
        out.pop("out_dir", None)
        return out


def _objective_source(name: str) -> str:
    """The distribution (and version) that registers objective ``name``, or where else it came from."""
    from importlib.metadata import entry_points

    for ep in entry_points(group="lm_workbench.objectives"):
        if ep.name == name and ep.dist is not None:
            return f"{ep.dist.name} {ep.dist.version}"
    return "plugins folder"


def run_provenance(summary: dict[str, Any]) -> dict[str, Any]:
    """What produced a finished pre-training run: versions, device, seed, model and data fingerprints."""
    from lm_workbench.runs.provenance import collect_provenance

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
    Ctrl-C: the loop saves a checkpoint first; the summary then has ``cancelled: True``."""
    return PretrainRun(spec).in_process(echo=echo, store_path=store_path)



# The long-run lane's pre-training target. It runs in the lane's spawned child (so an out-of-memory error or a crash
# never takes the window down), with the run's ``RunContext``; ``PretrainRun`` records it: metrics and checkpoints
# as the loop reports them, the context's cancel flag as the loop's cancel token (the loop saves a checkpoint, then
# ``Cancelled`` marks the run cancelled), the final numbers, files and provenance.
pretrain_lane_job = PretrainRun.lane_job


def submit_pretrain(lane: Any, spec: PretrainSpec) -> int:
    """Queue ``spec`` on a ``LongRunLane``; returns the run id (the columns the runs browser shows). The spec is
    checked first (cheap)."""
    return PretrainRun(spec).submit(lane, PRETRAIN.target)
