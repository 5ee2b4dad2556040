"""Masking helpers objectives share: BERT's budget, position selection and 80/10/10 treatment.

``budget`` and ``select_positions`` follow BERT's ``create_pretraining_data.py``
(Devlin et al. 2019): of the ``m`` eligible (non-special) tokens,
``max(1, round(rate * m))`` are selected, uniformly or as whole words.
``draw_treatments`` and ``apply_treatments`` give each selected position (or,
with one draw per span, each span) the mask token, a random ordinary token or
its own token (section 3.1). ``mlm``, ``spanbert`` and ``distillation`` use
them; plugins reach them through ``lm_workbench.engine.plugin_api``.
"""

from __future__ import annotations

import numpy as np

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.objectives.preview import CODE, PositionKind
from lm_workbench.engine.objectives.sampling import round_half_up
from lm_workbench.engine.objectives.vocab import VocabInfo

MASKED, RANDOM, KEPT = CODE[PositionKind.MASKED], CODE[PositionKind.RANDOM], CODE[PositionKind.KEPT]


def budget(rate: float, eligible: int) -> int:
    """BERT's number of positions to predict: max(1, round(rate * eligible)), 0 when nothing is eligible."""
    return 0 if eligible == 0 else min(eligible, max(1, round_half_up(rate * eligible)))


def whole_word_selection(rng: np.random.Generator, candidates: np.ndarray, starts: np.ndarray, n: int) -> np.ndarray:
    """BERT's whole-word masking: words in random order, each taken whole if it fits the budget ``n``.

    ``candidates`` are the eligible positions, ``starts`` a bool per position
    of the example (``VocabInfo.word_starts``). Returns sorted positions.
    """
    word_of = np.cumsum(starts[candidates]) - 1  # word index of each candidate token
    lengths = np.bincount(word_of)
    first = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    chosen: list[int] = []
    total = 0
    for w in rng.permutation(len(lengths)).tolist():
        if total >= n:
            break
        if total + lengths[w] > n:
            continue
        chosen.append(w)
        total += int(lengths[w])
    if not chosen:
        return np.zeros(0, dtype=np.int64)
    picked = np.concatenate([candidates[first[w]: first[w] + lengths[w]] for w in chosen])
    return np.sort(picked)


def select_positions(ids: np.ndarray, info: VocabInfo, rng: np.random.Generator, rate: float,
                     whole_words: bool, max_predictions: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(selected positions, sorted; the eligible positions). ``max_predictions`` > 0 caps the budget (BERT's
    ``max_predictions_per_seq``: ``min(max_predictions_per_seq, max(1, round(len * masked_lm_prob))))``."""
    special = info.is_special(ids)
    candidates = np.flatnonzero(~special)
    n = budget(rate, len(candidates))
    if max_predictions > 0:
        n = min(n, max_predictions)
    if whole_words:
        return whole_word_selection(rng, candidates, info.word_starts(ids, special), n), candidates
    return np.sort(rng.choice(candidates, size=n, replace=False)), candidates


def check_shares(owner: str, mask_prob: float, random_prob: float) -> None:
    """``WorkbenchError`` unless the mask and random shares leave a non-negative share kept."""
    if mask_prob + random_prob > 1.0 + 1e-9:
        raise WorkbenchError(
            f"{owner}: mask_token_prob + random_token_prob must be at most 1 (the rest is kept), "
            f"not {mask_prob} + {random_prob}"
        )


def draw_treatments(rng: np.random.Generator, n: int, mask_prob: float, random_prob: float) -> np.ndarray:
    """``n`` independent draws of MASKED / RANDOM / KEPT codes (see ``CODE``)."""
    u = rng.random(n)
    return np.where(u < mask_prob, MASKED, np.where(u < mask_prob + random_prob, RANDOM, KEPT)).astype(np.int64)


def apply_treatments(ids: np.ndarray, positions: np.ndarray, codes: np.ndarray, info: VocabInfo,
                     rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The corrupted ids and the per-position kind codes; ``codes[k]`` applies to ``positions[k]``."""
    if info.mask_id is None:
        raise WorkbenchError("this objective needs a mask token, and the tokenizer has none")
    random_ids = info.random_pool[rng.integers(0, len(info.random_pool), size=len(positions))]
    out = ids.copy()
    kinds = np.full(len(ids), CODE[PositionKind.UNCHANGED], dtype=np.int64)
    out[positions[codes == MASKED]] = info.mask_id
    out[positions[codes == RANDOM]] = random_ids[codes == RANDOM]
    kinds[positions] = codes
    return out, kinds


__all__ = ["apply_treatments", "budget", "check_shares", "draw_treatments", "select_positions",
           "whole_word_selection"]
