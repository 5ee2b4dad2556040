"""The long-run lane's pre-training job: ``"workbench.pretrain.job:pretrain_job"``.

It runs in the lane's spawned child (so an out-of-memory error or a crash
never takes the window down), with the run's ``RunContext``: metrics and
checkpoints go to the run store as the loop reports them (``StoreReporter``),
the context's cancel flag is the loop's cancel token (the loop saves a
checkpoint, then ``Cancelled`` marks the run cancelled), and the lane's
heartbeat thread keeps ``heartbeat_at`` fresh so a dead child is later
marked interrupted. ``submit_pretrain`` queues a spec with the columns the
runs browser shows.
"""

from __future__ import annotations

from typing import Any

from workbench.lanes.run_context import RunContext
from workbench.pretrain.recording import KIND, StoreReporter, record_outputs
from workbench.pretrain.spec import PretrainSpec
from workbench.runs.kinds import PRETRAIN


def pretrain_job(ctx: RunContext, **spec_dict: Any) -> dict[str, Any]:
    """Run the pre-training that ``spec_dict`` (``PretrainSpec.to_dict()``) describes; return its summary."""
    from workbench.pretrain.run import run_pretrain

    spec = PretrainSpec.from_dict(spec_dict)
    summary = run_pretrain(spec, cancel=ctx, report=StoreReporter(ctx), run_id=ctx.run_id)
    record_outputs(ctx, summary)
    return summary


def submit_pretrain(lane: Any, spec: PretrainSpec) -> int:
    """Queue ``spec`` on a ``LongRunLane``; returns the run id. The spec is checked first (cheap)."""
    spec.check()
    params = spec.to_dict()
    return lane.submit(PRETRAIN.target, params, kind=KIND, name=spec.title(), model=f"{spec.family}-{spec.preset}",
                       method=spec.objective, params=params, cli_command=spec.cli_command())
