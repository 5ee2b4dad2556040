"""The long-run lane's pre-training job: ``"lm_workbench.pretrain.job:pretrain_lane_job"``.

It runs in the lane's spawned child (so an out-of-memory error or a crash never takes the window down), with
the run's ``RunContext``; ``PretrainRun`` (``lm_workbench.pretrain.recording``, a ``LongRun``) records it: metrics
and checkpoints as the loop reports them, the context's cancel flag as the loop's cancel token (the loop saves
a checkpoint, then ``Cancelled`` marks the run cancelled), the final numbers, files and provenance.
``submit_pretrain`` queues a spec with the columns the runs browser shows.
"""

from __future__ import annotations

from typing import Any

from lm_workbench.pretrain.recording import KIND, PRETRAIN, PretrainRun
from lm_workbench.pretrain.spec import PretrainSpec

pretrain_lane_job = PretrainRun.lane_job


def submit_pretrain(lane: Any, spec: PretrainSpec) -> int:
    """Queue ``spec`` on a ``LongRunLane``; returns the run id. The spec is checked first (cheap)."""
    return PretrainRun(spec).submit(lane, PRETRAIN.target)


__all__ = ["KIND", "pretrain_lane_job", "submit_pretrain"]
