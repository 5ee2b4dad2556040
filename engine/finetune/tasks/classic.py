"""The head tasks (``seq-cls``, ``token-cls``, ``qa``, ``seq2seq``): encoded features, the task model's own loss,
and the task's metrics over the whole validation set at each evaluation.

The loop's validation gives the loss; the task's metrics need every prediction at once (F1 and MCC do not average
over batches), so at each evaluation the whole validation set is scored (``lm_workbench.engine.finetune.validation``)
and the metrics join the event's ``extra``. QA data with an unanswerable question (SQuAD 2.0, in either set)
trains the no-answer position and lets validation predict "no answer". Rows longer than the window are cut and
counted (the summary's ``notes`` and ``rows_cut``).
"""

from __future__ import annotations

from typing import Any, Generator

import torch

from lm_workbench.engine.data.squad import any_unanswerable
from lm_workbench.engine.finetune.encoding import batches_of, collate, cut_note, encode_task_counted, targets
from lm_workbench.engine.finetune.run_types import FineTuneData, FineTuneResult, FineTuneSettings
from lm_workbench.engine.finetune.tasks.base import Encoded, Trained, TuningTask
from lm_workbench.engine.finetune.validation import ValidationReport, validate_task
from lm_workbench.engine.progress import Progress
from lm_workbench.engine.training.config import TrainingConfig
from lm_workbench.engine.training.events import EvalMetrics
from lm_workbench.engine.training.task import TrainingTask


def build_training_task(task: str, model: Any, train_features: list, validation_features: list, pad_id: int,
                        batch_size: int) -> TrainingTask:
    """The loop's task: batches of encoded features, the task model's own loss."""
    validation = batches_of(task, validation_features, pad_id, batch_size)

    def make_batch(indices: list[int], rng: Any) -> Any:
        return collate(task, [train_features[i] for i in indices], pad_id)

    def loss(model: Any, heads: dict, batch: Any) -> tuple[torch.Tensor, dict[str, float]]:
        return model(**batch.inputs, **targets(task, batch)).loss, {}

    return TrainingTask(model=model, heads={}, train_size=len(train_features), make_batch=make_batch, loss=loss,
                        validation_batches=lambda: validation)


class ClassicTask(TuningTask):
    """A head task; subclasses change how the sets are encoded and scored."""

    def __init__(self, data: FineTuneData) -> None:
        self.data, self.name = data, data.task
        self.extra: dict[str, Any] = {}  # the summary's extra (notes, counts)
        self.report = ValidationReport({})  # the latest evaluation's
        self.tokenizer: Any = None
        self.settings: FineTuneSettings | None = None
        self.features: tuple[list, list] = ([], [])
        self.steps = 0  # the loop's planned steps

    def pad_id(self) -> int:
        pad = self.tokenizer.pad_token_id
        return pad if pad is not None else 0

    def encode_features(self, model: Any) -> Generator[Any, None, tuple[list, list]]:
        data, settings = self.data, self.settings
        train, train_cut = encode_task_counted(data.task, self.tokenizer, data.train, data.labels, settings.max_length)
        validation, validation_cut = encode_task_counted(data.task, self.tokenizer, data.validation, data.labels,
                                                         settings.max_length)
        notes = [n for n in (cut_note(train_cut, len(data.train), settings.max_length, "training"),
                             cut_note(validation_cut, len(data.validation), settings.max_length, "validation")) if n]
        if notes:  # rows longer than the window: cut and counted (the summary's notes)
            self.extra = {"notes": notes, "rows_cut": {"training": train_cut, "validation": validation_cut}}
            for note in notes:
                yield Progress(0, 0, note)
        return train, validation

    def encode(self, model: Any, tokenizer: Any, settings: FineTuneSettings) -> Generator[Any, None, Encoded]:
        self.tokenizer, self.settings = tokenizer, settings
        self.features = yield from self.encode_features(model)
        return Encoded(len(self.features[0]), settings)

    def batches(self, model: Any, config: TrainingConfig) -> Generator[Any, None, TrainingTask]:
        self.steps = config.steps
        train, validation = self.features
        return build_training_task(self.name, model, train, validation, self.pad_id(), self.settings.batch_size)
        yield  # a generator

    def score(self, model: Any) -> ValidationReport:
        """The task's metrics over the whole validation set."""
        data = self.data
        no_answer = data.task == "qa" and (any_unanswerable(data.train) or any_unanswerable(data.validation))
        return validate_task(data.task, model, self.tokenizer, data.validation, data.labels, self.settings.max_length,
                             batch_size=max(32, self.settings.batch_size), no_answer=no_answer)

    def validate(self, model: Any, event: EvalMetrics) -> Generator[Any, None, tuple[dict, dict]]:
        yield Progress(event.step, self.steps, f"validating at step {event.step}")
        self.report = self.score(model)
        model.train()
        metrics = self.report.metrics
        return {"validation_loss": event.validation_loss, **metrics}, {**event.extra, **metrics}

    def summarise(self, run: Trained) -> Generator[Any, None, FineTuneResult]:
        return run.result(dict(self.report.metrics), self.report, self.extra)
        yield  # a generator
