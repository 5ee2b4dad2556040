"""One preference-tuning (DPO) run in this process: a method applied to a language model, trained by the one loop.

``preference_job(...)`` is a generator shaped like ``lm_workbench.engine.finetune.job.finetune_job`` (same events, a
``FineTuneResult``): it yields ``ParametersCounted`` once the method is applied, then the loop's events. Before
the first step the reference model (``lm_workbench.engine.preference.reference``: a frozen copy, or LoRA's disabled adapter)
scores every training and validation pair once, in fixed batches: π_ref never changes, so its answer
log-probabilities are constants of the data, and each step then runs the policy only (its DPO loss is
``lm_workbench.engine.preference.dpo``). Dropout is switched off, so at step 0 the policy is the reference: loss log 2,
every margin 0.

Reported: every logged step ``loss``, ``reward_margin``, ``preference_accuracy``, ``chosen_reward`` and
``rejected_reward`` of its batch; every evaluation (step 0, each epoch, the end) the validation pairs'
``validation_loss`` (mean DPO loss per pair), ``validation_reward_margin``, ``validation_preference_accuracy``,
``validation_chosen_preferred`` (the fraction of pairs where the model itself gives the chosen answer the
higher log-probability) and ``validation_logp_margin`` (its mean log π(chosen|x) - log π(rejected|x)). At the
end the tuned model scores the training pairs once more (``train``), and ``before``/``after`` hold the
validation pairs' ``preference_accuracy`` and ``logp_margin`` judged by the model itself: the reference
(the model before) and the tuned one, per category too when the data has categories.
"""

from __future__ import annotations

import dataclasses
import math
import time
from pathlib import Path
from typing import Any, Generator, Sequence

import torch

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.finetune.job import (
    FineTuneData, FineTuneResult, FineTuneSettings, ParametersCounted, PeakMemory, _read_history, _write_history,
    count_parameters, training_config,
)
from lm_workbench.engine.finetune.validation import ValidationReport
from lm_workbench.engine.instruct.template import ChatTemplate
from lm_workbench.engine.instruct.answers import model_window
from lm_workbench.engine.preference.data import PreferencePair
from lm_workbench.engine.preference.dpo import dpo_terms
from lm_workbench.engine.preference.encoding import EncodedPairs, collate_pairs, encode_pairs, pair_count
from lm_workbench.engine.preference.logprobs import model_logprobs
from lm_workbench.engine.preference.names import DEFAULT_BETA, METRIC_KEYS, TASK
from lm_workbench.engine.preference.reference import disable_dropout, is_lora, make_reference
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, Progress, relay
from lm_workbench.engine.training.distributed import env_world_size
from lm_workbench.engine.training.events import CheckpointSaved, EvalMetrics
from lm_workbench.engine.training.loop import train
from lm_workbench.engine.training.task import TrainingTask



@dataclasses.dataclass
class PreferenceResult(FineTuneResult):
    """``FineTuneResult`` plus what a preference run reports besides (``summary_extra`` goes into summary.json)."""

    summary_extra: dict[str, Any] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class PairScores:
    """Summed answer log-probabilities of a list of pairs: chosen and rejected, each ``[N]``."""

    chosen: torch.Tensor
    rejected: torch.Tensor


def score_pairs(logprobs_of: Any, encoded: EncodedPairs, pad_id: int, batch_size: int,
                device: torch.device | None = None) -> PairScores:
    """``logprobs_of(inputs, labels)`` over every encoded pair in fixed batches of ``batch_size`` pairs."""
    chosen, rejected = [], []
    pairs = encoded.pairs
    for start in range(0, len(pairs), batch_size):
        batch = collate_pairs(pairs[start:start + batch_size], pad_id)
        if device is not None:
            batch = batch.to(device)
        n = pair_count(batch)
        with torch.no_grad():
            values = logprobs_of(batch.inputs, batch.labels).float().cpu()
        chosen.append(values[:n])
        rejected.append(values[n:])
    empty = torch.zeros(0)
    return PairScores(torch.cat(chosen) if chosen else empty, torch.cat(rejected) if rejected else empty)


def choice_summary(chosen: torch.Tensor, rejected: torch.Tensor, categories: Sequence[str] = ()) -> dict[str, Any]:
    """The model's own choice between the two answers: ``preference_accuracy`` (the fraction of pairs whose
    chosen answer has the higher log-probability), ``logp_margin`` (the mean difference), per category too."""
    if not len(chosen):
        return {"preference_accuracy": float("nan"), "logp_margin": float("nan")}
    wins = (chosen > rejected).float()
    out: dict[str, Any] = {"preference_accuracy": float(wins.mean()), "logp_margin": float((chosen - rejected).mean())}
    if any(categories):
        by: dict[str, list[float]] = {}
        for category, win in zip(categories, wins.tolist()):
            by.setdefault(category or "(none)", []).append(win)
        out["categories"] = {c: {"preference_accuracy": sum(v) / len(v), "pairs": len(v)} for c, v in sorted(by.items())}
    return out


def dpo_summary(policy: PairScores, reference: PairScores, beta: float) -> dict[str, float]:
    """``loss``, ``reward_margin``, ``preference_accuracy`` of the pairs (means; NaN without pairs)."""
    if not len(policy.chosen):
        return {k: float("nan") for k in METRIC_KEYS}
    terms = dpo_terms(policy.chosen, policy.rejected, reference.chosen, reference.rejected, beta)
    metrics = terms.metrics()
    return {k: metrics[k] for k in METRIC_KEYS}


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


def pair_rows(pairs: Sequence[PreferencePair], encoded: EncodedPairs, policy: PairScores, reference: PairScores,
              beta: float) -> list[dict[str, Any]]:
    """One row per scored validation pair (the predictions table): ``text`` the prompt, ``gold`` the chosen
    answer, ``predicted`` the answer the tuned model gives the higher log-probability, ``confidence`` σ of
    that log-probability difference, and the margins before and after."""
    rows = []
    for k, item in enumerate(encoded.pairs):
        pair = pairs[item.index]
        after = float(policy.chosen[k] - policy.rejected[k])
        before = float(reference.chosen[k] - reference.rejected[k])
        rows.append({"index": item.index, "text": pair.prompt_text, "gold": pair.chosen,
                     "predicted": pair.chosen if after > 0 else pair.rejected, "correct": after > 0,
                     "confidence": _sigmoid(abs(after)), "rejected": pair.rejected, "category": pair.category,
                     "logp_margin_before": before, "logp_margin_after": after,
                     "reward_margin": beta * (after - before)})
    return rows


def _check_encoded(encoded: EncodedPairs, role: str) -> None:
    if not encoded.pairs:
        first = encoded.skipped[0][1] if encoded.skipped else "no pairs"
        raise WorkbenchError(f"no {role} pair could be encoded ({len(encoded.skipped)} skipped; first: {first})")


def preference_job(model: Any, tokenizer: Any, method: Any, method_config: Any, data: FineTuneData,
                   settings: FineTuneSettings, *, template: ChatTemplate, beta: float = DEFAULT_BETA,
                   checkpoint_dir: Path, cancel: CancelToken = NEVER_CANCELLED,
                   resume_from: Path | None = None) -> Generator[Any, None, PreferenceResult]:
    """DPO-train ``model`` (a causal or sequence-to-sequence LM) with ``method``; see the module."""
    if not beta > 0:
        raise WorkbenchError(f"beta must be > 0, not {beta}")
    if env_world_size() > 1:
        raise WorkbenchError("preference tuning runs in one process; start it without torchrun")
    method.check_task(TASK)
    if not data.train or not data.validation:
        raise WorkbenchError("preference tuning needs at least one training and one validation pair")
    encoder_decoder = bool(getattr(getattr(model, "config", None), "is_encoder_decoder", False))
    window = model_window(model)
    if window is not None and settings.max_length > window:  # a longer row would run past the position embeddings
        yield Progress(0, 0, f"max length {settings.max_length} is more than the model's window: {window} used")
        settings = dataclasses.replace(settings, max_length=window)
    torch.manual_seed(settings.seed)
    yield Progress(0, 0, f"applying {method.name} to the language model")
    prepared = method.apply(model, method_config, TASK)
    trainable, total = count_parameters(prepared)
    if trainable == 0:
        raise WorkbenchError(f"the {method.name} method left no parameter to train")
    yield Progress(0, 0, f"{trainable:,} of {total:,} parameters trainable ({100 * trainable / total:.2f}%)")
    yield ParametersCounted(trainable, total)
    disable_dropout(prepared)
    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else (tokenizer.eos_token_id or 0)
    train_pairs = encode_pairs(tokenizer, template, data.train, settings.max_length, encoder_decoder)
    validation_pairs = encode_pairs(tokenizer, template, data.validation, settings.max_length, encoder_decoder)
    _check_encoded(train_pairs, "training")
    _check_encoded(validation_pairs, "validation")
    config = training_config(settings, len(train_pairs.pairs), env_world_size())
    device = torch.device("cuda" if torch.cuda.is_available() and config.device != "cpu" else "cpu")
    score_batch = max(8, settings.batch_size)

    if config.threads:  # π_ref is scored with the threads the steps use: another count sums in another order,
        from lm_workbench.engine.models.device import set_cpu_threads  # and step 0's margins would be ~1e-7 instead of 0

        set_cpu_threads(config.threads)
    reference = make_reference(prepared)
    yield Progress(0, 0, f"scoring {len(train_pairs.pairs) + len(validation_pairs.pairs):,} pairs with the "
                         f"reference model ({reference.description})")
    prepared.to(device)
    reference_of = lambda inputs, labels: reference.logprobs(inputs, labels, encoder_decoder)  # noqa: E731
    train_reference = score_pairs(reference_of, train_pairs, pad_id, score_batch, device)
    validation_reference = score_pairs(reference_of, validation_pairs, pad_id, score_batch, device)
    del reference, reference_of  # π_ref's numbers are all that is needed now (a frozen copy's memory is freed)

    def with_reference(batch: Any, scores: PairScores, positions: Sequence[int]) -> Any:
        ref = torch.cat([scores.chosen[list(positions)], scores.rejected[list(positions)]])
        return dataclasses.replace(batch, extras={**batch.extras, "reference": ref})

    def make_batch(indices: list[int], rng: Any) -> Any:
        return with_reference(collate_pairs([train_pairs.pairs[i] for i in indices], pad_id), train_reference, indices)

    validation_batches = []
    for start in range(0, len(validation_pairs.pairs), settings.batch_size):
        positions = list(range(start, min(start + settings.batch_size, len(validation_pairs.pairs))))
        batch = collate_pairs([validation_pairs.pairs[i] for i in positions], pad_id)
        validation_batches.append(with_reference(batch, validation_reference, positions))

    last: dict[str, Any] = {"batch": None}
    collected: list[tuple[torch.Tensor, torch.Tensor]] = []  # this evaluation's policy (chosen, rejected)

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

    training_task = TrainingTask(model=prepared, heads={}, train_size=len(train_pairs.pairs), make_batch=make_batch,
                                 loss=loss, validation_batches=lambda: validation_batches, evaluate=evaluate,
                                 eval_weight=lambda batch: float(pair_count(batch)))

    cuda = device.type == "cuda"
    memory = PeakMemory(cuda)
    started = time.perf_counter()
    history, wall_before = _read_history(resume_from) if resume_from is not None else ([], 0.0)
    final_policy: dict[str, PairScores] = {}

    def validated(event: Any) -> Generator[Any, None, None]:
        if isinstance(event, EvalMetrics):
            if collected:
                final_policy["scores"] = PairScores(torch.cat([c for c, _ in collected]),
                                                    torch.cat([r for _, r in collected]))
            collected.clear()
            values = {"validation_loss": event.validation_loss, **event.extra}
            history.append((event.step, values))
            event = dataclasses.replace(event, extra={f"validation_{k}": v for k, v in event.extra.items()})
        elif isinstance(event, CheckpointSaved):
            _write_history(event.path, history, wall_before + time.perf_counter() - started)
        yield event

    result = yield from relay(train(training_task, config, checkpoint_dir=checkpoint_dir, cancel=cancel,
                                    resume_from=resume_from), validated)
    prepared.eval()
    yield Progress(config.steps, config.steps, "scoring the training pairs with the tuned model")
    policy_of = lambda inputs, labels: model_logprobs(prepared, inputs, labels, encoder_decoder)  # noqa: E731
    train_policy = score_pairs(policy_of, train_pairs, pad_id, score_batch, next(prepared.parameters()).device)
    validation_policy = final_policy.get("scores") or score_pairs(policy_of, validation_pairs, pad_id, score_batch,
                                                                  next(prepared.parameters()).device)
    wall = wall_before + time.perf_counter() - started
    peak = memory.peak_mb()

    validation = dpo_summary(validation_policy, validation_reference, beta)
    categories = [data.validation[p.index].category for p in validation_pairs.pairs]
    rows = pair_rows(data.validation, validation_pairs, validation_policy, validation_reference, beta)
    report = ValidationReport(dict(validation), rows, None, rows_scored=len(rows))
    best: dict[str, float] = {}
    for _, values in history:
        for key, value in values.items():
            better = min if key == "validation_loss" else max
            best[key] = better(best.get(key, value), value)
    extra = {
        "beta": beta,
        "train": dpo_summary(train_policy, train_reference, beta),
        "before": choice_summary(validation_reference.chosen, validation_reference.rejected, categories),
        "after": choice_summary(validation_policy.chosen, validation_policy.rejected, categories),
        "reference": "disabled-adapter" if is_lora(prepared) else "frozen-copy",
        "template": {"source": template.source, "note": template.note},
        "encoding": {"train": train_pairs.as_json(), "validation": validation_pairs.as_json()},
    }
    return PreferenceResult(
        model=prepared, trainable_parameters=trainable, total_parameters=total, validation=dict(validation),
        best_validation=best, history=history, report=report, steps=result.steps_done, wall_s=wall,
        peak_memory_mb=peak, device=result.device, first_loss=result.first_loss, final_loss=result.final_loss,
        validation_loss=result.validation_loss, losses=list(result.losses), summary_extra=extra)

