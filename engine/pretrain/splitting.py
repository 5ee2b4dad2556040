"""Deterministic train/validation split by document (or by line for corpora of few documents).

Each unit ``i`` (a document, or a line) gets a hash of ``(seed, i)`` mapped
to [0, 1); the ``round(fraction * n)`` units with the smallest hashes are the
validation set (at least one, and at least one unit left for training). The
hash is SplitMix64's finaliser (Steele et al. 2014), so the split depends on
nothing but the seed and the units' positions: the same corpus and seed give
the same split on every machine, and the validation size is predictable
rather than left to chance.
"""

from __future__ import annotations

import numpy as np

from lm_workbench.engine.errors import WorkbenchError

MIN_DOCUMENTS_FOR_DOCUMENT_SPLIT = 10
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def unit_hash(seed: int, indices: np.ndarray) -> np.ndarray:
    """A float in [0, 1) per index, uniform and fixed by (seed, index)."""
    x = np.asarray(indices, dtype=np.uint64) + np.uint64(seed % 2**64) * _GOLDEN
    x = (x + _GOLDEN) & np.uint64(2**64 - 1)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    x = x ^ (x >> np.uint64(31))
    return (x >> np.uint64(11)).astype(np.float64) / float(2**53)


def validation_mask(n_units: int, fraction: float, seed: int) -> np.ndarray:
    """Which of ``n_units`` units are validation ([n_units] bool); both sides non-empty for n >= 2."""
    if not 0.0 <= fraction < 1.0:
        raise WorkbenchError(f"validation fraction must be in [0, 1), not {fraction}")
    if fraction == 0.0 or n_units == 0:
        return np.zeros(n_units, dtype=bool)
    if n_units < 2:
        raise WorkbenchError("the corpus is too small to split: it needs at least two non-empty lines")
    with np.errstate(over="ignore"):
        u = unit_hash(seed, np.arange(n_units, dtype=np.uint64))
    k = min(n_units - 1, max(1, int(round(fraction * n_units))))
    mask = np.zeros(n_units, dtype=bool)
    mask[np.argpartition(u, k - 1)[:k]] = True  # the k units with the smallest hashes
    return mask


def split_unit(n_documents: int) -> str:
    """"documents" when there are enough of them to split by, else "lines"."""
    return "documents" if n_documents >= MIN_DOCUMENTS_FOR_DOCUMENT_SPLIT else "lines"


__all__ = ["MIN_DOCUMENTS_FOR_DOCUMENT_SPLIT", "split_unit", "unit_hash", "validation_mask"]
