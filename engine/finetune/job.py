"""One fine-tuning run in this process: a method applied to a task model, trained by the one loop.

``finetune_job(...)`` is a generator: it yields ``ParametersCounted`` once the method is applied,
then the loop's events (``Progress`` every step, ``StepMetrics``, ``EvalMetrics``,
``CheckpointSaved``) and returns a ``FineTuneResult``. Epochs become
optimizer steps (``ceil(epochs · ceil(train examples / (batch · processes)))``; QA counts context windows); the
validation set is scored at step 0, after every epoch and at the end. The loop's own validation gives
the loss; the task's metrics need every prediction at once (F1 and MCC do not average over batches),
so at each of the loop's ``EvalMetrics`` this generator scores the whole validation set
(``lm_workbench.engine.finetune.validation``) and yields the event again with the metrics in ``extra``. QA data with
an unanswerable question (SQuAD 2.0, in either set) trains the no-answer position and lets validation
predict "no answer".

Checkpoints (every epoch, at most ``CHECKPOINT_EVERY_MAX`` steps apart, on cancel and at the end) carry
the evaluations so far (``HISTORY_FILE``), so a run resumed from one (``resume_from``) ends with the
same numbers as an uninterrupted run. Under torchrun the loop shards the data and averages gradients;
only rank 0 scores the validation set.

Cancel through ``cancel`` (the loop's token): the loop saves a checkpoint and raises ``Cancelled``.
Peak memory is the growth of the process's ``ru_maxrss`` during training on the CPU (0 when an
earlier peak in the process was higher), ``torch.cuda.max_memory_allocated`` on a GPU; ``state_bytes`` is
the counted parameter + gradient + AdamW-state bytes (``lm_workbench.engine.finetune.footprint``), the bench's CPU figure.
"""

from __future__ import annotations

import dataclasses
import json
import math
import resource
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generator, Sequence

import torch

from lm_workbench.engine.data.squad import any_unanswerable
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.finetune.encoding import batches_of, collate, cut_note, encode_task_counted, targets
from lm_workbench.engine.finetune.footprint import training_state_bytes
from lm_workbench.engine.finetune.names import SENTENCE_TASK
from lm_workbench.engine.finetune.validation import ValidationReport, validate_task
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, Progress, relay
from lm_workbench.engine.training.config import TrainingConfig
from lm_workbench.engine.training.distributed import env_world_size
from lm_workbench.engine.training.events import CheckpointSaved, EvalMetrics
from lm_workbench.engine.training.loop import train
from lm_workbench.engine.training.task import TrainingTask

CHECKPOINT_EVERY_MAX = 200  # steps between checkpoints at most (an epoch of a real data set is thousands)
HISTORY_FILE = "finetune_history.json"  # in each checkpoint: the evaluations up to its step, the time so far


@dataclass
class FineTuneData:
    """The reader's examples for ``task`` (``lm_workbench.engine.data.tasks``), already split; ``labels`` for the
    classification tasks (token classification: "O" first), empty otherwise."""

    task: str
    train: Sequence[Any]
    validation: Sequence[Any]
    labels: Sequence[str] = ()
    reads: dict[str, Any] = field(default_factory=dict)  # "train"/"validation" -> the file's ReadReport
    sentence: Any = None  # the sentence task's SentenceSetup (loss, pooling, margin; lm_workbench.engine.finetune.sentence)
    template: Any = None  # instruct: the ChatTemplate (lm_workbench.engine.instruct.template)
    notes: list[str] = field(default_factory=list)  # what the label rule did (lm_workbench.engine.data.labels)


@dataclass
class FineTuneSettings:
    epochs: float = 3.0
    batch_size: int = 16
    lr: float = 1e-3
    max_length: int = 128
    seed: int = 0
    training: dict[str, Any] = field(default_factory=dict)  # any other TrainingConfig field


@dataclass(frozen=True)
class ParametersCounted:
    """Yielded once the method is applied, before the first step: what will train."""

    trainable: int
    total: int

    @property
    def percent(self) -> float:
        return 100.0 * self.trainable / self.total if self.total else 0.0


@dataclass
class FineTuneResult:
    model: Any  # what the method's ``apply`` returned, trained
    trainable_parameters: int
    total_parameters: int
    validation: dict[str, float | None]  # the task metrics at the end (None: undefined, said in report.notes)
    best_validation: dict[str, float | None]  # each metric's best value over the evaluations (None: never defined)
    history: list[tuple[int, dict[str, float | None]]]  # (step, validation_loss + metrics) per evaluation
    report: ValidationReport  # the final predictions, rows and confusion matrix
    steps: int
    wall_s: float
    peak_memory_mb: float
    device: str
    first_loss: float
    final_loss: float
    validation_loss: float
    losses: list[float] = field(default_factory=list)
    tokens_per_s: float = 0.0  # the loop's training tokens over its training time
    tokens_seen: int = 0
    state_bytes: int = 0  # parameters + gradients + AdamW states (lm_workbench.engine.finetune.footprint)
    extra: dict[str, Any] = field(default_factory=dict)  # instruct: token counts, before/after, per category

    @property
    def trainable_percent(self) -> float:
        return 100.0 * self.trainable_parameters / self.total_parameters if self.total_parameters else 0.0


def count_parameters(model: Any) -> tuple[int, int]:
    """(trainable, total) parameters, each shared tensor once."""
    seen, trainable, total = set(), 0, 0
    for parameter in model.parameters():
        if id(parameter) in seen:
            continue
        seen.add(id(parameter))
        total += parameter.numel()
        trainable += parameter.numel() if parameter.requires_grad else 0
    return trainable, total


def training_config(settings: FineTuneSettings, train_size: int, world_size: int = 1) -> TrainingConfig:
    """The loop's settings: epochs as steps, an evaluation per epoch, 6% warm-up, linear decay.

    Under torchrun each step takes ``batch_size`` examples on each of ``world_size`` processes, so an
    epoch has ``ceil(train_size / (batch_size · world_size))`` steps. A checkpoint is written every
    epoch, and at least every ``CHECKPOINT_EVERY_MAX`` steps, so a killed run loses little.
    """
    per_epoch = max(1, math.ceil(train_size / (settings.batch_size * max(1, world_size))))
    steps = max(1, math.ceil(settings.epochs * per_epoch))
    every = min(per_epoch, CHECKPOINT_EVERY_MAX)
    values: dict[str, Any] = {
        "steps": steps, "batch_size": settings.batch_size, "lr": settings.lr, "seed": settings.seed,
        "warmup_steps": round(0.06 * steps), "eval_every": per_epoch if per_epoch < steps else 0,
        "log_every": max(1, min(10, per_epoch)), "keep_checkpoints": 1, "weight_decay": 0.01,
        "checkpoint_every": every if every < steps else 0,
    }
    values.update(settings.training)
    return TrainingConfig.from_dict(values)


def _rss_mb() -> float:
    scale = 1024 * 1024 if sys.platform == "darwin" else 1024  # bytes on macOS, KiB on Linux
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale / 2**20


class PeakMemory:
    """The memory a run adds, in MiB: CUDA's peak allocation over the one at the start on a GPU, else the
    process's peak resident size over the one at the start."""

    def __init__(self, cuda: bool) -> None:
        self.cuda = cuda
        if cuda:
            torch.cuda.reset_peak_memory_stats()
        self.baseline = self._now()

    def _now(self) -> float:
        return torch.cuda.max_memory_allocated() / 2**20 if self.cuda else _rss_mb()

    def peak_mb(self) -> float:
        return self._now() - self.baseline if self.cuda else max(0.0, self._now() - self.baseline)


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


def _sentence_parts(model: Any, tokenizer: Any, data: FineTuneData, settings: FineTuneSettings,
                    pad_id: int) -> tuple[TrainingTask, Any]:
    """The sentence task's training task and its validation (``lm_workbench.engine.finetune.sentence.training``)."""
    from lm_workbench.engine.finetune.sentence import training as sentence

    setup = data.sentence
    train = sentence.encode_sentences(tokenizer, data.train, setup, settings.max_length)
    suits = sentence.suits_loss(data.validation, setup.loss)
    validation = sentence.encode_sentences(tokenizer, data.validation, setup, settings.max_length) if suits else []
    task = sentence.build_sentence_task(model, train, validation, pad_id, settings.batch_size, setup, suits)

    def validate() -> ValidationReport:
        return sentence.validate_sentences(model, tokenizer, data.validation, setup, settings.max_length,
                                           batch_size=max(32, settings.batch_size))

    return task, validate


def _read_history(checkpoint: Path) -> tuple[list[tuple[int, dict[str, float]]], float]:
    """(the evaluations, the wall time) a checkpoint's run had when it was written; empty when not saved."""
    file = Path(checkpoint) / HISTORY_FILE
    if not file.is_file():
        return [], 0.0
    try:
        saved = json.loads(file.read_text(encoding="utf-8"))
        return [(int(step), {k: None if v is None else float(v) for k, v in values.items()})
                for step, values in saved["history"]], float(saved.get("wall_s", 0.0))
    except (OSError, ValueError, KeyError, TypeError):
        return [], 0.0


def _write_history(checkpoint: Path, history: list[tuple[int, dict[str, float]]], wall_s: float) -> None:
    if not Path(checkpoint).is_dir():  # pruned already: a newer checkpoint of another segment is kept
        return
    data = {"history": [[step, values] for step, values in history], "wall_s": wall_s}
    (Path(checkpoint) / HISTORY_FILE).write_text(json.dumps(data), encoding="utf-8")


def finetune_job(model: Any, tokenizer: Any, method: Any, method_config: Any, data: FineTuneData,
                   settings: FineTuneSettings, *, checkpoint_dir: Path, cancel: CancelToken = NEVER_CANCELLED,
                   resume_from: Path | None = None) -> Generator[Any, None, FineTuneResult]:
    """Apply ``method`` to the task ``model`` (head fresh, seeded by the caller) and train it; see the module.

    ``resume_from`` (a checkpoint this run wrote) continues it: the method is applied as before, then
    the loop restores the trained weights, the optimizer, the schedule, the data order and every
    generator, so the losses go on as an uninterrupted run's would.
    """
    task = data.task
    method.check_task(task)
    if not data.train or not data.validation:
        raise WorkbenchError("fine-tuning needs at least one training and one validation example")
    torch.manual_seed(settings.seed)
    instruct = task == "instruct"
    if instruct:  # the base model's answers, before the method changes it (full fine-tuning trains it in place)
        from lm_workbench.engine.instruct import tuning

        yield Progress(0, 0, "the base model answers the held-out prompts")
        before = tuning.answer_held_out(model, tokenizer, data.template, data.validation, settings.max_length,
                                        settings.seed)
        model.train()
    yield Progress(0, 0, f"applying {method.name} to the {task} model")
    prepared = method.apply(model, method_config, task)
    trainable, total = count_parameters(prepared)
    state_bytes = training_state_bytes(prepared)["total"]
    if trainable == 0:
        raise WorkbenchError(f"the {method.name} method left no parameter to train")
    yield Progress(0, 0, f"{trainable:,} of {total:,} parameters trainable ({100 * trainable / total:.2f}%)")
    yield ParametersCounted(trainable, total)
    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    extra: dict[str, Any] = {}
    in_batch = None  # an in-batch loss's plan (lm_workbench.engine.finetune.sentence.batches)
    if task == SENTENCE_TASK:
        from lm_workbench.engine.finetune.sentence import batches as in_batches

        if data.sentence.loss in in_batches.IN_BATCH_LOSSES:
            in_batches.check_in_batch(data.sentence.loss, settings.batch_size, len(data.train))
            in_batch = in_batches.plan(data.sentence.loss, len(data.train), settings.batch_size, env_world_size())
            for line in in_batch.notes:
                data.sentence.count(line)
            settings = dataclasses.replace(settings, batch_size=in_batch.batch_size)
        training_task, validate = _sentence_parts(prepared, tokenizer, data, settings, pad_id)
    else:
        if instruct:
            encoded_train, encoded_validation = tuning.encode_sets(tokenizer, data, settings.max_length, prepared)
            train_features, validation_features = encoded_train.features, encoded_validation.features
            extra = {**encoded_train.stats(), "validation_set": encoded_validation.stats(),
                     "notes": encoded_train.notes("training") + encoded_validation.notes("validation")}
            for note in extra["notes"]:
                yield Progress(0, 0, note)
        else:
            train_features, train_cut = encode_task_counted(task, tokenizer, data.train, data.labels,
                                                            settings.max_length)
            validation_features, validation_cut = encode_task_counted(task, tokenizer, data.validation, data.labels,
                                                                      settings.max_length)
            notes = [n for n in (cut_note(train_cut, len(data.train), settings.max_length, "training"),
                                 cut_note(validation_cut, len(data.validation), settings.max_length, "validation"))
                     if n]
            if notes:  # rows longer than the window: cut and counted (the summary's notes)
                extra = {"notes": notes, "rows_cut": {"training": train_cut, "validation": validation_cut}}
                for note in notes:
                    yield Progress(0, 0, note)
        training_task = build_training_task(task, prepared, train_features, validation_features, pad_id,
                                            settings.batch_size)

        def validate() -> ValidationReport:
            if instruct:
                found, rows, categories = tuning.validate(prepared, tokenizer, data.template, data.validation,
                                                          settings.max_length)
                extra["categories"] = categories
                return ValidationReport(found, rows, rows_scored=len(rows))
            return validate_task(task, prepared, tokenizer, data.validation, data.labels, settings.max_length,
                                 batch_size=max(32, settings.batch_size), no_answer=no_answer)
    config = training_config(settings, in_batch.train_size if in_batch else training_task.train_size,
                             env_world_size())
    if in_batch is not None:
        dropped = in_batches.plan_note(data.sentence.loss, len(data.train), settings.batch_size, config.steps)
        if dropped:
            data.sentence.count(dropped)

    cuda = torch.cuda.is_available() and config.device != "cpu"
    memory = PeakMemory(cuda)
    started = time.perf_counter()
    history, wall_before = _read_history(resume_from) if resume_from is not None else ([], 0.0)
    report = ValidationReport({})
    no_answer = task == "qa" and (any_unanswerable(data.train) or any_unanswerable(data.validation))  # SQuAD 2.0

    def validated(event: Any) -> Generator[Any, None, None]:
        """Pass a training event on; an evaluation is first completed with the task's own validation metrics."""
        nonlocal report
        if isinstance(event, EvalMetrics):
            yield Progress(event.step, config.steps, f"validating at step {event.step}")
            report = validate()
            prepared.train()
            history.append((event.step, {"validation_loss": event.validation_loss, **report.metrics}))
            event = dataclasses.replace(event, extra={**event.extra, **report.metrics})
        elif isinstance(event, CheckpointSaved):
            _write_history(event.path, history, wall_before + time.perf_counter() - started)
        yield event

    sampler = in_batches.InBatchSampler if in_batch is not None else None
    result = yield from relay(train(training_task, config, checkpoint_dir=checkpoint_dir, cancel=cancel,
                                    resume_from=resume_from, sampler_factory=sampler), validated)
    wall = wall_before + time.perf_counter() - started
    peak = memory.peak_mb()
    prepared.eval()
    if instruct:
        yield Progress(result.steps_done, config.steps, "the tuned model answers the held-out prompts")
        after = tuning.answer_held_out(prepared, tokenizer, data.template, data.validation, settings.max_length,
                                       settings.seed)
        extra["before_after"] = tuning.before_after(data.validation, before, after, settings.seed)
        prepared.eval()
    best: dict[str, float | None] = {}
    for _, values in history:
        for key, value in values.items():
            if value is None or value != value:  # undefined at this evaluation: never the best
                best.setdefault(key, None)
                continue
            better = min if key == "validation_loss" else max
            best[key] = value if best.get(key) is None else better(best[key], value)
    validation = dict(report.metrics)
    if instruct:  # the answers' loss first, as the instruct JSON names it ("loss" in the store is the training loss)
        validation = {"loss": result.validation_loss, **validation}
    return FineTuneResult(
        model=prepared, trainable_parameters=trainable, total_parameters=total, validation=validation,
        best_validation=best, history=history, report=report, steps=result.steps_done, wall_s=wall,
        peak_memory_mb=peak, device=result.device, first_loss=result.first_loss, final_loss=result.final_loss,
        validation_loss=result.validation_loss, losses=list(result.losses), tokens_per_s=float(result.tokens_per_s),
        tokens_seen=int(result.tokens_seen), state_bytes=state_bytes, extra=extra)

