"""The one tuning lifecycle: a method applied to a model, trained by the one loop, for any ``TuningTask``.

``run_tuning(task, ...)`` is a generator: it yields ``Progress`` and ``ParametersCounted`` once the method is
applied, then the loop's events (``Progress`` "step k of n" every step, ``StepMetrics``, ``EvalMetrics`` completed
by the task's ``validate``, ``CheckpointSaved``) and returns the task's ``summarise``. The loop
(``lm_workbench.engine.training.loop.train``) owns the device and precision, the optimizer and schedule, the
steps, the validation cadence, cancel (a checkpoint, then ``Cancelled``) and the checkpoints; here each checkpoint
also gets the evaluations so far (``run_state.HISTORY_FILE``), so a run resumed from one (``resume_from``) ends
with an uninterrupted run's numbers, and the end has each metric's best value, the wall time and the peak memory
(``run_state.PeakMemory``). What differs between tasks is only in the task (``tasks.base``).
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any, Generator

import torch

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.finetune.footprint import training_state_bytes
from lm_workbench.engine.finetune.run_state import PeakMemory, best_values, read_history, write_history
from lm_workbench.engine.finetune.run_types import (
    FineTuneData, FineTuneResult, FineTuneSettings, ParametersCounted, count_parameters, training_config,
)
from lm_workbench.engine.finetune.tasks.base import Trained, TuningTask
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, Progress, relay
from lm_workbench.engine.training.distributed import env_world_size
from lm_workbench.engine.training.events import CheckpointSaved, EvalMetrics
from lm_workbench.engine.training.loop import train


def run_tuning(task: TuningTask, model: Any, tokenizer: Any, method: Any, method_config: Any, data: FineTuneData,
               settings: FineTuneSettings, *, checkpoint_dir: Path, cancel: CancelToken = NEVER_CANCELLED,
               resume_from: Path | None = None) -> Generator[Any, None, FineTuneResult]:
    """Apply ``method`` to ``model`` for ``task`` and train it; see the module. ``WorkbenchError`` for a task the
    method does not support, empty data, or a method that leaves nothing to train."""
    settings = yield from task.start(model, settings)
    method.check_task(task.name)
    if not data.train or not data.validation:
        raise WorkbenchError(task.needs_data)
    torch.manual_seed(settings.seed)
    yield from task.before(model, tokenizer, settings)
    yield Progress(0, 0, task.applying(method.name))
    prepared = method.apply(model, method_config, task.name)
    trainable, total = count_parameters(prepared)
    state_bytes = training_state_bytes(prepared)["total"]
    if trainable == 0:
        raise WorkbenchError(f"the {method.name} method left no parameter to train")
    yield Progress(0, 0, f"{trainable:,} of {total:,} parameters trainable ({100 * trainable / total:.2f}%)")
    yield ParametersCounted(trainable, total)
    encoded = yield from task.encode(prepared, tokenizer, settings)
    config = training_config(encoded.settings, encoded.train_size, env_world_size())
    training_task = yield from task.batches(prepared, config)

    memory = PeakMemory(torch.cuda.is_available() and config.device != "cpu")
    started = time.perf_counter()
    history, wall_before = read_history(resume_from) if resume_from is not None else ([], 0.0)

    def validated(event: Any) -> Generator[Any, None, None]:
        """Pass a training event on; an evaluation is first completed by the task's validation."""
        if isinstance(event, EvalMetrics):
            values, extra = yield from task.validate(prepared, event)
            history.append((event.step, values))
            event = dataclasses.replace(event, extra=extra)
        elif isinstance(event, CheckpointSaved):
            write_history(event.path, history, wall_before + time.perf_counter() - started)
        yield event

    loop = yield from relay(train(training_task, config, checkpoint_dir=checkpoint_dir, cancel=cancel,
                                  resume_from=resume_from, sampler_factory=encoded.sampler), validated)
    wall = wall_before + time.perf_counter() - started
    peak = memory.peak_mb()
    prepared.eval()
    trained = Trained(model=prepared, trainable=trainable, total=total, state_bytes=state_bytes, history=history,
                      best=best_values(history), loop=loop, steps=config.steps, wall_s=wall, peak_memory_mb=peak)
    return (yield from task.summarise(trained))
