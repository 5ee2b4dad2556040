"""``TuningTask``: what one kind of tuning fills in of the one lifecycle (``lm_workbench.engine.finetune.lifecycle``).

The lifecycle calls, in order: ``start`` (refusals and settings, before anything is done), ``before`` (work on the
model before the method changes it), ``encode`` (both sets; the training size the steps count), ``batches`` (the
loop's ``TrainingTask``: batches and loss, once the loop's settings are known), ``validate`` at each of the loop's
evaluations, and ``summarise`` once the loop is done. Each step that takes time is a generator whose
``Progress`` the lifecycle passes on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generator

from lm_workbench.engine.finetune.run_state import History
from lm_workbench.engine.finetune.run_types import FineTuneResult, FineTuneSettings
from lm_workbench.engine.training.config import TrainingConfig
from lm_workbench.engine.training.events import EvalMetrics, TrainingResult
from lm_workbench.engine.training.sampler import SamplerFactory
from lm_workbench.engine.training.task import TrainingTask


@dataclass(frozen=True)
class Encoded:
    """What ``encode`` returns: the examples an epoch trains on (for the steps per epoch), the settings to train
    with (an in-batch loss may cap the batch size) and the loop's data order (None: the seeded default)."""

    train_size: int
    settings: FineTuneSettings
    sampler: SamplerFactory | None = None


@dataclass
class Trained:
    """What the lifecycle hands ``summarise``: the trained model and the run's numbers."""

    model: Any
    trainable: int
    total: int
    state_bytes: int
    history: History
    best: dict[str, float | None]
    loop: TrainingResult
    steps: int  # the loop's planned steps
    wall_s: float
    peak_memory_mb: float

    def result(self, validation: dict[str, float | None], report: Any, extra: dict[str, Any],
               kind: type = FineTuneResult, **more: Any) -> Any:
        """The run's ``FineTuneResult`` (or ``kind``, a subclass, with ``more``)."""
        loop = self.loop
        return kind(
            model=self.model, trainable_parameters=self.trainable, total_parameters=self.total,
            validation=validation, best_validation=self.best, history=self.history, report=report,
            steps=loop.steps_done, wall_s=self.wall_s, peak_memory_mb=self.peak_memory_mb, device=loop.device,
            first_loss=loop.first_loss, final_loss=loop.final_loss, validation_loss=loop.validation_loss,
            losses=list(loop.losses), tokens_per_s=float(loop.tokens_per_s), tokens_seen=int(loop.tokens_seen),
            state_bytes=self.state_bytes, extra=extra, **more)


class TuningTask:
    """The protocol, with what most tasks do by default. ``name`` is the task the method is applied for."""

    name: str = ""
    needs_data = "fine-tuning needs at least one training and one validation example"

    def start(self, model: Any, settings: FineTuneSettings) -> Generator[Any, None, FineTuneSettings]:
        """Refuse what cannot run (``WorkbenchError``); return the settings to run with."""
        return settings
        yield  # a generator

    def before(self, model: Any, tokenizer: Any, settings: FineTuneSettings) -> Generator[Any, None, None]:
        """Work on the base model before the method changes it (none by default)."""
        return
        yield  # a generator

    def applying(self, method: str) -> str:
        return f"applying {method} to the {self.name} model"

    def encode(self, model: Any, tokenizer: Any, settings: FineTuneSettings) -> Generator[Any, None, Encoded]:
        """Encode both sets for ``model`` (the method's); yield what was cut or skipped as ``Progress``."""
        raise NotImplementedError

    def batches(self, model: Any, config: TrainingConfig) -> Generator[Any, None, TrainingTask]:
        """The loop's task (batches, loss, validation batches) for ``config``."""
        raise NotImplementedError

    def validate(self, model: Any, event: EvalMetrics) -> Generator[Any, None, tuple[dict, dict]]:
        """At one of the loop's evaluations: (the history's values, the event's ``extra``)."""
        raise NotImplementedError

    def summarise(self, run: Trained) -> Generator[Any, None, FineTuneResult]:
        """The result, once the loop is done (``run.model`` in eval mode)."""
        raise NotImplementedError
