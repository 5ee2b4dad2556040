"""Preference tuning (DPO) in the one lifecycle (``lm_workbench.engine.finetune.lifecycle``); see
``lm_workbench.engine.preference.train`` for what it reports.

Before the first step the reference model (``lm_workbench.engine.preference.reference``: a frozen copy, or LoRA's
disabled adapter) scores every training and validation pair once, in fixed batches: π_ref never changes, so its
answer log-probabilities are constants of the data, and each step then runs the policy only. Dropout is switched
off, so at step 0 the policy is the reference: loss log 2, every margin 0.
"""

from __future__ import annotations

import functools
import dataclasses
from typing import Any, Generator, Sequence

import torch

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.finetune.run_types import FineTuneData, FineTuneResult, FineTuneSettings
from lm_workbench.engine.finetune.tasks.base import Encoded, Trained, TuningTask
from lm_workbench.engine.finetune.validation import ValidationReport
from lm_workbench.engine.instruct.answers import model_window
from lm_workbench.engine.instruct.template import ChatTemplate
from lm_workbench.engine.preference.dpo import dpo_terms
from lm_workbench.engine.preference.encoding import collate_pairs, encode_pairs, pair_count
from lm_workbench.engine.preference.logprobs import model_logprobs
from lm_workbench.engine.preference.names import TASK
from lm_workbench.engine.preference.reference import disable_dropout, is_lora, make_reference
from lm_workbench.engine.preference.scores import (
    PairScores, check_encoded, choice_summary, dpo_summary, pair_rows, score_pairs,
)
from lm_workbench.engine.progress import Progress
from lm_workbench.engine.training.config import TrainingConfig
from lm_workbench.engine.training.distributed import env_world_size
from lm_workbench.engine.training.events import EvalMetrics
from lm_workbench.engine.training.task import TrainingTask


@dataclasses.dataclass
class PreferenceResult(FineTuneResult):
    """``FineTuneResult`` plus what a preference run reports besides (``summary_extra`` goes into summary.json)."""

    summary_extra: dict[str, Any] = dataclasses.field(default_factory=dict)


class PreferenceTask(TuningTask):
    name = TASK
    needs_data = "preference tuning needs at least one training and one validation pair"

    def __init__(self, data: FineTuneData, template: ChatTemplate, beta: float) -> None:
        self.data, self.template, self.beta = data, template, beta
        self.collected: list[tuple[torch.Tensor, torch.Tensor]] = []  # this evaluation's policy (chosen, rejected)
        self.final_policy: PairScores | None = None

    def start(self, model: Any, settings: FineTuneSettings) -> Generator[Any, None, FineTuneSettings]:
        if not self.beta > 0:
            raise WorkbenchError(f"beta must be > 0, not {self.beta}")
        if env_world_size() > 1:
            raise WorkbenchError("preference tuning runs in one process; start it without torchrun")
        self.encoder_decoder = bool(getattr(getattr(model, "config", None), "is_encoder_decoder", False))
        window = model_window(model)
        if window is not None and settings.max_length > window:  # a longer row would run past the positions
            yield Progress(0, 0, f"max length {settings.max_length} is more than the model's window: {window} used")
            settings = dataclasses.replace(settings, max_length=window)
        return settings

    def applying(self, method: str) -> str:
        return f"applying {method} to the language model"

    def encode(self, model: Any, tokenizer: Any, settings: FineTuneSettings) -> Generator[Any, None, Encoded]:
        disable_dropout(model)
        self.settings = settings
        self.pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else (tokenizer.eos_token_id or 0)
        self.train_pairs = encode_pairs(tokenizer, self.template, self.data.train, settings.max_length,
                                        self.encoder_decoder)
        self.validation_pairs = encode_pairs(tokenizer, self.template, self.data.validation, settings.max_length,
                                             self.encoder_decoder)
        check_encoded(self.train_pairs, "training")
        check_encoded(self.validation_pairs, "validation")
        return Encoded(len(self.train_pairs.pairs), settings)
        yield  # a generator

    def batches(self, model: Any, config: TrainingConfig) -> Generator[Any, None, TrainingTask]:
        train_pairs, validation_pairs, pad_id = self.train_pairs, self.validation_pairs, self.pad_id
        self.steps = config.steps
        self.device = torch.device("cuda" if torch.cuda.is_available() and config.device != "cpu" else "cpu")
        self.score_batch = max(8, self.settings.batch_size)
        if config.threads:  # π_ref is scored with the threads the steps use: another count sums in another order,
            from lm_workbench.engine.models.device import set_cpu_threads  # and step 0's margins would be ~1e-7

            set_cpu_threads(config.threads)
        reference = make_reference(model)
        yield Progress(0, 0, f"scoring {len(train_pairs.pairs) + len(validation_pairs.pairs):,} pairs with the "
                             f"reference model ({reference.description})")
        model.to(self.device)
        reference_of = functools.partial(reference.logprobs, encoder_decoder=self.encoder_decoder)
        self.train_reference = score_pairs(reference_of, train_pairs, pad_id, self.score_batch, self.device)
        self.validation_reference = score_pairs(reference_of, validation_pairs, pad_id, self.score_batch, self.device)
        del reference, reference_of  # π_ref's numbers are all that is needed now (a frozen copy's memory is freed)
        return self._training_task(model)

    def _training_task(self, model: Any) -> TrainingTask:
        train_pairs, pad_id, batch_size = self.train_pairs, self.pad_id, self.settings.batch_size
        beta, encoder_decoder, collected = self.beta, self.encoder_decoder, self.collected

        def with_reference(batch: Any, scores: PairScores, positions: Sequence[int]) -> Any:
            ref = torch.cat([scores.chosen[list(positions)], scores.rejected[list(positions)]])
            return dataclasses.replace(batch, extras={**batch.extras, "reference": ref})

        def make_batch(indices: list[int], rng: Any) -> Any:
            return with_reference(collate_pairs([train_pairs.pairs[i] for i in indices], pad_id),
                                  self.train_reference, indices)

        validation_batches = []
        pairs = self.validation_pairs.pairs
        for start in range(0, len(pairs), batch_size):
            positions = list(range(start, min(start + batch_size, len(pairs))))
            batch = collate_pairs([pairs[i] for i in positions], pad_id)
            validation_batches.append(with_reference(batch, self.validation_reference, positions))

        last: dict[str, Any] = {"batch": None}

        def terms_of(model: Any, batch: Any) -> tuple[Any, torch.Tensor]:
            n = pair_count(batch)
            logps = model_logprobs(model, batch.inputs, batch.labels, encoder_decoder)
            ref = batch.extras["reference"].to(logps.device)
            return dpo_terms(logps[:n], logps[n:], ref[:n], ref[n:], beta), logps

        def loss(model: Any, heads: dict, batch: Any) -> tuple[torch.Tensor, dict[str, float]]:
            terms, logps = terms_of(model, batch)
            if not torch.is_grad_enabled():  # validation: ``evaluate`` reads the same numbers
                last.update(batch=batch, terms=terms, logps=logps.detach())
            metrics = terms.metrics()
            metrics.pop("loss")
            return terms.losses.mean(), metrics

        def evaluate(model: Any, heads: dict, batch: Any) -> dict[str, float]:
            if last["batch"] is not batch:
                terms, logps = terms_of(model, batch)
            else:
                terms, logps = last["terms"], last["logps"]
            n = pair_count(batch)
            chosen, rejected = logps[:n].float().cpu(), logps[n:].float().cpu()
            collected.append((chosen, rejected))
            metrics = terms.metrics()
            return {"reward_margin": metrics["reward_margin"], "preference_accuracy": metrics["preference_accuracy"],
                    "chosen_preferred": float((chosen > rejected).float().mean()),
                    "logp_margin": float((chosen - rejected).mean())}

        return TrainingTask(model=model, heads={}, train_size=len(train_pairs.pairs), make_batch=make_batch,
                            loss=loss, validation_batches=lambda: validation_batches, evaluate=evaluate,
                            eval_weight=lambda batch: float(pair_count(batch)))

    def validate(self, model: Any, event: EvalMetrics) -> Generator[Any, None, tuple[dict, dict]]:
        if self.collected:
            self.final_policy = PairScores(torch.cat([c for c, _ in self.collected]),
                                           torch.cat([r for _, r in self.collected]))
        self.collected.clear()
        values = {"validation_loss": event.validation_loss, **event.extra}
        return values, {f"validation_{k}": v for k, v in event.extra.items()}
        yield  # a generator

    def summarise(self, run: Trained) -> Generator[Any, None, FineTuneResult]:
        model, beta, pad_id = run.model, self.beta, self.pad_id
        yield Progress(self.steps, self.steps, "scoring the training pairs with the tuned model")
        policy_of = lambda inputs, labels: model_logprobs(model, inputs, labels, self.encoder_decoder)  # noqa: E731
        device = next(model.parameters()).device
        train_policy = score_pairs(policy_of, self.train_pairs, pad_id, self.score_batch, device)
        validation_policy = self.final_policy or score_pairs(policy_of, self.validation_pairs, pad_id,
                                                             self.score_batch, device)
        validation = dpo_summary(validation_policy, self.validation_reference, beta)
        categories = [self.data.validation[p.index].category for p in self.validation_pairs.pairs]
        rows = pair_rows(self.data.validation, self.validation_pairs, validation_policy, self.validation_reference,
                         beta)
        report = ValidationReport(dict(validation), rows, None, rows_scored=len(rows))
        extra = {
            "beta": beta,
            "train": dpo_summary(train_policy, self.train_reference, beta),
            "before": choice_summary(self.validation_reference.chosen, self.validation_reference.rejected, categories),
            "after": choice_summary(validation_policy.chosen, validation_policy.rejected, categories),
            "reference": "disabled-adapter" if is_lora(model) else "frozen-copy",
            "template": {"source": self.template.source, "note": self.template.note},
            "encoding": {"train": self.train_pairs.as_json(), "validation": self.validation_pairs.as_json()},
        }
        return run.result(dict(validation), report, {}, kind=PreferenceResult, summary_extra=extra)
