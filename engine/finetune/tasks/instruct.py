"""Instruction tuning in the one lifecycle (``lm_workbench.engine.instruct.tuning`` does the work): the base model
answers the held-out prompts before the method changes it; the sets are encoded by the chat template
(``data.template``), with their token counts; each evaluation scores greedy answers against the references
(``exact_match``, ``rougeL``, per category); at the end the tuned model answers the held-out prompts again
(``extra["before_after"]``), and ``validation`` starts with the answers' ``loss``.
"""

from __future__ import annotations

from typing import Any, Generator

from lm_workbench.engine.finetune.run_types import FineTuneResult, FineTuneSettings
from lm_workbench.engine.finetune.tasks.base import Trained
from lm_workbench.engine.finetune.tasks.classic import ClassicTask
from lm_workbench.engine.finetune.validation import ValidationReport
from lm_workbench.engine.instruct import tuning
from lm_workbench.engine.progress import Progress


class InstructTask(ClassicTask):
    before_answers: dict | None = None

    def before(self, model: Any, tokenizer: Any, settings: FineTuneSettings) -> Generator[Any, None, None]:
        """The base model's answers, before the method changes it (full fine-tuning trains it in place)."""
        yield Progress(0, 0, "the base model answers the held-out prompts")
        self.before_answers = tuning.answer_held_out(model, tokenizer, self.data.template, self.data.validation,
                                                     settings.max_length, settings.seed)
        model.train()

    def encode_features(self, model: Any) -> Generator[Any, None, tuple[list, list]]:
        train, validation = tuning.encode_sets(self.tokenizer, self.data, self.settings.max_length, model)
        self.extra = {**train.stats(), "validation_set": validation.stats(),
                      "notes": train.notes("training") + validation.notes("validation")}
        for note in self.extra["notes"]:
            yield Progress(0, 0, note)
        return train.features, validation.features

    def score(self, model: Any) -> ValidationReport:
        found, rows, categories = tuning.validate(model, self.tokenizer, self.data.template, self.data.validation,
                                                  self.settings.max_length)
        self.extra["categories"] = categories
        return ValidationReport(found, rows, rows_scored=len(rows))

    def summarise(self, run: Trained) -> Generator[Any, None, FineTuneResult]:
        data, settings = self.data, self.settings
        yield Progress(run.loop.steps_done, run.steps, "the tuned model answers the held-out prompts")
        after = tuning.answer_held_out(run.model, self.tokenizer, data.template, data.validation, settings.max_length,
                                       settings.seed)
        self.extra["before_after"] = tuning.before_after(data.validation, self.before_answers, after, settings.seed)
        run.model.eval()
        # the answers' loss first, as the instruct JSON names it ("loss" in the store is the training loss)
        validation = {"loss": run.loop.validation_loss, **self.report.metrics}
        return run.result(validation, self.report, self.extra)
