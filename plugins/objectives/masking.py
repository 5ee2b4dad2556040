"""BERT's 80/10/10 replacement, shared by ``mlm`` (per token) and ``spanbert`` (per span).

Of the selected positions, a share becomes the mask token, a share a random
ordinary vocabulary token, and the rest keep their token (Devlin et al.
2019, section 3.1); all of them are scored.
"""

from __future__ import annotations

import numpy as np

from engine.plugin_api import CODE, PositionKind, VocabInfo, WorkbenchError

MASKED, RANDOM, KEPT = CODE[PositionKind.MASKED], CODE[PositionKind.RANDOM], CODE[PositionKind.KEPT]


def check_shares(owner: str, mask_prob: float, random_prob: float) -> None:
    if mask_prob + random_prob > 1.0 + 1e-9:
        raise WorkbenchError(
            f"{owner}: mask_token_prob + random_token_prob must be at most 1 (the rest is kept), "
            f"not {mask_prob} + {random_prob}"
        )


def draw_treatments(rng: np.random.Generator, n: int, mask_prob: float, random_prob: float) -> np.ndarray:
    """``n`` independent draws of MASKED / RANDOM / KEPT codes."""
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
