"""The pairs' answer log-probabilities and what is read from them: the DPO metrics, the model's own choice between
the two answers, and one row per validation pair."""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Sequence

import torch

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.preference.data import PreferencePair
from lm_workbench.engine.preference.dpo import dpo_terms
from lm_workbench.engine.preference.encoding import EncodedPairs, collate_pairs, pair_count
from lm_workbench.engine.preference.names import METRIC_KEYS


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


def check_encoded(encoded: EncodedPairs, role: str) -> None:
    if not encoded.pairs:
        first = encoded.skipped[0][1] if encoded.skipped else "no pairs"
        raise WorkbenchError(f"no {role} pair could be encoded ({len(encoded.skipped)} skipped; first: {first})")
