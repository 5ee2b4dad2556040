"""One course model as a long-run lane job: ``"lm_workbench.pretrain.course_runs:course_lane_job"``.

The window's course build (``lm_workbench.ui.pretrain.course_builder``) submits one family at a time, so a
Cancel leaves only what ran in the run store. The job is a recorded ``pretrain`` run like any other (the runs
browser's "run again" and resume treat it as one); after training it writes the model's card
(``workbench_model.json``, with the version and the build's seconds) as the command line's build does.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from lm_workbench.pretrain.runs import PretrainRun
from lm_workbench.pretrain.spec import PretrainSpec

TARGET = "lm_workbench.pretrain.course_runs:course_lane_job"


class CourseModelRun(PretrainRun):
    """A pre-training run that leaves a course model: the card is written before the run is finished."""

    def run_body(self, ctx: Any, report: Any) -> dict[str, Any]:
        from lm_workbench.pretrain.course_models import _write_card

        ctx.check_cancel()  # cancelled while the process started: stop before the tokenizer and the corpus
        start = time.monotonic()
        summary = self.body(ctx, report)
        _write_card(Path(summary["model_dir"]), self.spec.family, summary, Path(self.spec.corpus[0]),
                    time.monotonic() - start)
        self.record_outputs(ctx, summary)
        return summary


course_lane_job = CourseModelRun.lane_job


def submit_course_model(lane: Any, spec: PretrainSpec) -> int:
    """Queue one course model's ``spec`` (``course_models.course_spec``) on a ``LongRunLane``; the run id."""
    return CourseModelRun(spec).submit(lane, TARGET)
