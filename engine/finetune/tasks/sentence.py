"""Sentence embeddings (S-BERT) in the one lifecycle: each example's sentences through the shared encoder, pooled
(``lm_workbench.engine.sentence.pooling``) and scored by a similarity loss (``lm_workbench.engine.sentence.training``);
at each evaluation Spearman's rho of the validation pairs' cosines against their gold scores. An in-batch loss
(MNRL, CoSENT) trains on batches that never hold a pair twice nor one pair alone
(``lm_workbench.engine.sentence.batches``): its batch size is capped at the pairs and a lone last pair is counted.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Generator, Sequence

from lm_workbench.engine.finetune.run_types import FineTuneSettings
from lm_workbench.engine.finetune.tasks.base import Encoded
from lm_workbench.engine.finetune.tasks.classic import ClassicTask
from lm_workbench.engine.finetune.validation import ValidationReport
from lm_workbench.engine.sentence import batches as in_batches
from lm_workbench.engine.sentence import training as sentence
from lm_workbench.engine.sentence.data import ScoredPair
from lm_workbench.engine.training.config import TrainingConfig
from lm_workbench.engine.training.distributed import env_world_size
from lm_workbench.engine.training.task import TrainingTask


def validate_sentences(model: Any, tokenizer: Any, data: Sequence[Any], setup: Any, max_length: int,
                       batch_size: int = 32) -> ValidationReport:
    """The validation report: Spearman on scored pairs (rows: gold score, predicted cosine); nothing on triplets.
    Spearman's rho is None with a note when it is not defined (fewer than three pairs, constant cosines or scores)."""
    from lm_workbench.engine.probing.sts import spearman

    if not data or not isinstance(data[0], ScoredPair):
        return ValidationReport({}, [], rows_scored=0)
    cosines = sentence.pair_cosines(model, tokenizer, [(e.first, e.second) for e in data], setup.pooling, max_length,
                                    batch_size)
    gold = [e.score for e in data]
    notes: list[str] = []
    rho = spearman(cosines, gold, notes)
    rows = [{"index": i, "text": f"{e.first}  ⟷  {e.second}", "sentence1": e.first, "sentence2": e.second,
             "gold": e.score, "predicted": round(c, 4), "correct": None, "confidence": c}
            for i, (e, c) in enumerate(zip(data, cosines))]
    return ValidationReport({"spearman": rho}, rows, rows_scored=len(data), notes=notes)


class SentenceTask(ClassicTask):
    """``data.sentence`` is the ``SentenceSetup`` (loss, pooling, margin; its notes are the summary's)."""

    plan: Any = None  # an in-batch loss's plan

    def encode(self, model: Any, tokenizer: Any, settings: FineTuneSettings) -> Generator[Any, None, Encoded]:
        setup, train = self.data.sentence, self.data.train
        sampler = None
        train_size = len(train)
        if setup.loss in in_batches.IN_BATCH_LOSSES:
            in_batches.check_in_batch(setup.loss, settings.batch_size, len(train))
            self.plan = in_batches.plan(setup.loss, len(train), settings.batch_size, env_world_size())
            for line in self.plan.notes:
                setup.count(line)
            settings = dataclasses.replace(settings, batch_size=self.plan.batch_size)
            sampler, train_size = in_batches.InBatchSampler, self.plan.train_size
        self.tokenizer, self.settings = tokenizer, settings
        self.suits = sentence.suits_loss(self.data.validation, setup.loss)
        encoded_train = sentence.encode_sentences(tokenizer, train, setup, settings.max_length)
        validation = (sentence.encode_sentences(tokenizer, self.data.validation, setup, settings.max_length)
                      if self.suits else [])
        self.features = (encoded_train, validation)
        return Encoded(train_size, settings, sampler)
        yield  # a generator

    def batches(self, model: Any, config: TrainingConfig) -> Generator[Any, None, TrainingTask]:
        setup, settings = self.data.sentence, self.settings
        self.steps = config.steps
        task = sentence.build_sentence_task(model, *self.features, self.pad_id(), settings.batch_size, setup,
                                            self.suits)
        if self.plan is not None:  # said after the validation batches' notes, as the steps are known only now
            dropped = in_batches.plan_note(setup.loss, len(self.data.train), settings.batch_size, config.steps)
            if dropped:
                setup.count(dropped)
        return task
        yield  # a generator

    def score(self, model: Any) -> ValidationReport:
        return validate_sentences(model, self.tokenizer, self.data.validation, self.data.sentence,
                                  self.settings.max_length, batch_size=max(32, self.settings.batch_size))
