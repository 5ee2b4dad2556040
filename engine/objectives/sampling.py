"""Random draws that depend only on a seed: per-example generators and rounding.

Objectives take a ``numpy.random.Generator``. Dynamic corruption (RoBERTa,
Liu et al. 2019) draws from it in order, so the same generator state gives
the same batch. Static corruption (BERT, Devlin et al. 2019) must give an
example the same corruption every epoch: ``example_rng(rng, i)`` is a fresh
generator keyed by the *seed* of ``rng`` (not its state) and the example
index ``i``.
"""

from __future__ import annotations

import math

import numpy as np

from lm_workbench.engine.errors import WorkbenchError

_STATIC_TAG = 0x57A71C  # keeps static streams apart from any other child of the same seed


def example_rng(rng: np.random.Generator, example_id: int) -> np.random.Generator:
    """A generator that depends only on the seed ``rng`` was made from and ``example_id``."""
    bit_generator = rng.bit_generator
    seed_seq = getattr(bit_generator, "seed_seq", None) or getattr(bit_generator, "_seed_seq", None)
    if not isinstance(seed_seq, np.random.SeedSequence):
        raise WorkbenchError("static corruption needs a generator made from a seed: numpy.random.default_rng(seed)")
    key = tuple(seed_seq.spawn_key) + (_STATIC_TAG, int(example_id))
    return np.random.default_rng(np.random.SeedSequence(entropy=seed_seq.entropy, spawn_key=key))


def round_half_up(x: float) -> int:
    """Round to the nearest integer, halves up (so 0.15 * 10 -> 2, whatever the float error)."""
    return int(math.floor(x + 0.5 + 1e-9))
