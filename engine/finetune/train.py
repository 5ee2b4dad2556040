"""One fine-tuning run in this process: a method applied to a task model, trained by the one lifecycle.

``finetune_job(...)`` is a generator: it yields ``ParametersCounted`` once the method is applied,
then the loop's events (``Progress`` every step, ``StepMetrics``, ``EvalMetrics``,
``CheckpointSaved``) and returns a ``FineTuneResult``. It picks the ``TuningTask`` for ``data.task``
(``TASK_KINDS``: the head tasks, the sentence task, instruct) and runs the one lifecycle
(``lm_workbench.engine.finetune.lifecycle.run_tuning``). Epochs become optimizer steps
(``ceil(epochs · ceil(train examples / (batch · processes)))``; QA counts context windows); the validation set is
scored at step 0, after every epoch and at the end, each task by its own metrics.

Checkpoints (every epoch, at most ``run_types.CHECKPOINT_EVERY_MAX`` steps apart, on cancel and at the end) carry
the evaluations so far (``run_state.HISTORY_FILE``), so a run resumed from one (``resume_from``) ends with the
same numbers as an uninterrupted run. Under torchrun the loop shards the data and averages gradients;
only rank 0 scores the validation set.

Cancel through ``cancel`` (the loop's token): the loop saves a checkpoint and raises ``Cancelled``.
Peak memory is the growth of the process's ``ru_maxrss`` during training on the CPU (0 when an
earlier peak in the process was higher), ``torch.cuda.max_memory_allocated`` on a GPU; ``state_bytes`` is
the counted parameter + gradient + AdamW-state bytes (``lm_workbench.engine.finetune.footprint``), the bench's CPU figure.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any, Generator

from lm_workbench.engine.finetune.lifecycle import run_tuning
from lm_workbench.engine.finetune.names import SENTENCE_TASK
from lm_workbench.engine.finetune.run_types import (  # noqa: F401 (this module's names, kept for its callers)
    FineTuneData, FineTuneResult, FineTuneSettings, ParametersCounted, count_parameters, training_config,
)
from lm_workbench.engine.finetune.tasks.base import TuningTask
from lm_workbench.engine.finetune.tasks.classic import ClassicTask
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken

# The tasks that fill in the lifecycle differently from the head tasks: task -> "module:class" (imported when used).
TASK_KINDS = {
    SENTENCE_TASK: "lm_workbench.engine.finetune.tasks.sentence:SentenceTask",
    "instruct": "lm_workbench.engine.finetune.tasks.instruct:InstructTask",
}


def tuning_task(data: FineTuneData) -> TuningTask:
    """The ``TuningTask`` for ``data.task``: its kind from ``TASK_KINDS``, a head task otherwise."""
    where = TASK_KINDS.get(data.task)
    if where is None:
        return ClassicTask(data)
    module, _, name = where.partition(":")
    return getattr(importlib.import_module(module), name)(data)


def finetune_job(model: Any, tokenizer: Any, method: Any, method_config: Any, data: FineTuneData,
                   settings: FineTuneSettings, *, checkpoint_dir: Path, cancel: CancelToken = NEVER_CANCELLED,
                   resume_from: Path | None = None) -> Generator[Any, None, FineTuneResult]:
    """Apply ``method`` to the task ``model`` (head fresh, seeded by the caller) and train it; see the module.

    ``resume_from`` (a checkpoint this run wrote) continues it: the method is applied as before, then
    the loop restores the trained weights, the optimizer, the schedule, the data order and every
    generator, so the losses go on as an uninterrupted run's would.
    """
    return (yield from run_tuning(tuning_task(data), model, tokenizer, method, method_config, data, settings,
                                  checkpoint_dir=checkpoint_dir, cancel=cancel, resume_from=resume_from))
