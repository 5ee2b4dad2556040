"""How many parameters a method would train, before training: apply it to a fresh task model and count.

The count depends on the architecture only, so the task model is built from
the loaded model's config (randomly initialised, no weights read): a copy the
method may freeze, wrap or extend without touching the loaded model. The
number of labels comes from the training file (classification, tagging), is
2 for extractive QA (start and end) and none for sequence-to-sequence.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from torch import nn

from engine.errors import WorkbenchError
from engine.finetune.method_api import TASKS
from engine.finetune.task_model import HEAD_CLASSES
from engine.peft_methods.counting import ParameterCount, count_parameters



def label_names(task: str, train_path: str | Path) -> list[str]:
    """The labels a task's training file uses ([] for QA and sequence-to-sequence)."""
    from engine.finetune import data

    if task == "seq-cls":
        return data.read_classification(train_path).labels
    if task == "token-cls":
        return data.read_bio(train_path).labels
    if task in ("qa", "seq2seq"):
        return []
    raise WorkbenchError(f"task must be one of {', '.join(TASKS)}, not {task!r}")


def task_model_from_config(config: Any, task: str, num_labels: int = 2) -> nn.Module:
    """A fresh, randomly initialised task model of ``config``'s architecture (no weights are read)."""
    import transformers

    if task not in HEAD_CLASSES:
        raise WorkbenchError(f"task must be one of {', '.join(TASKS)}, not {task!r}")
    config = copy.deepcopy(config)
    if task in ("seq-cls", "token-cls"):
        config.num_labels = max(2, int(num_labels))
    auto = getattr(transformers, HEAD_CLASSES[task])
    try:
        return auto.from_config(config)
    except ValueError as exc:  # transformers: this config has no model of that kind
        kind = getattr(config, "model_type", "this model")
        raise WorkbenchError(f"a {kind} model cannot do {task}: {str(exc).splitlines()[0]}") from None


def preview_counts(config: Any, task: str, method: Any, method_config: Any, num_labels: int = 2) -> ParameterCount:
    """Trainable and total parameters of ``method`` applied (with ``method_config``) to a fresh task model."""
    method.check_config(method_config)
    model = task_model_from_config(config, task, num_labels)
    adapted = method.apply(model, method_config, task)
    return count_parameters(adapted)
