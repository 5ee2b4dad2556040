"""Batches for the losses that score each example against the rest of its batch (in-batch negatives).

MNRL takes the other pairs' positives as each anchor's negatives, and CoSENT ranks every pair of the batch
against the others: a batch of one pair has nothing to compare, so its loss is 0 by construction (and trains
nothing), and a batch that holds one pair twice makes the pair its own negative. So for these losses:

- a batch size below 2, or fewer than two training pairs, is refused before training (``check_in_batch``);
- ``InBatchSampler`` cuts each epoch's seeded permutation into batches that never cross into the next epoch (no
  pair twice in a batch), holding all the pairs when the batch size is larger than their number; a last batch of
  one is dropped (that pair trains in the other epochs, whose orders differ) and counted (``plan_note``);
- validation batches of one are dropped too and counted (``validation_chunks``); with none left the validation
  loss is not defined (``None`` with a note), never the 0 a lone pair would give.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.maths.undefined import note as undefined_note
from lm_workbench.engine.training.sampler import SeededSampler

IN_BATCH_LOSSES = ("mnrl", "cosent")
WHY = {"mnrl": "in-batch negatives (each anchor against the other pairs' positives)",
       "cosent": "CoSENT (each pair ranked against the other pairs of its batch)"}


def check_in_batch(loss: str, batch_size: int, train_pairs: int) -> None:
    """Refuse, in one line, a setting whose loss is 0 by construction (see the module docstring)."""
    if loss not in IN_BATCH_LOSSES:
        return
    if batch_size < 2:
        raise WorkbenchError(f"the {loss} loss uses {WHY[loss]}: a batch of {batch_size} has nothing to compare, so "
                             f"the loss is 0 at every step and nothing trains; use --batch-size 2 or more")
    if train_pairs < 2:
        raise WorkbenchError(f"the {loss} loss uses {WHY[loss]}: it needs at least two training examples, the "
                             f"training set has {train_pairs}")


def kept_per_epoch(n: int, batch_size: int) -> int:
    """The pairs an epoch of ``n`` trains on in batches of ``batch_size`` (capped at ``n``): all but a last one
    that would be alone."""
    b = min(batch_size, n)
    return n - 1 if n % b == 1 and n > 1 else n


def batches_per_epoch(n: int, batch_size: int) -> int:
    b = min(batch_size, n)
    return math.ceil(kept_per_epoch(n, batch_size) / b)


class InBatchSampler(SeededSampler):
    """The loop's data order for in-batch losses (the ``SeededSampler`` protocol and epochs): epoch ``e`` visits
    ``np.random.default_rng([seed, e]).permutation(n)[rank::world_size]`` in batches of ``min(batch_size,
    shard)`` that stop at the epoch's end; a last batch of one is skipped (``dropped`` counts them)."""

    def __init__(self, n: int, batch_size: int, seed: int, rank: int = 0, world_size: int = 1):
        shard = len(range(int(rank), int(n), int(world_size)))
        if shard < 2:
            raise WorkbenchError(f"in-batch negatives need two training examples per process; this one has {shard}")
        super().__init__(n, min(int(batch_size), shard), seed, rank, world_size)
        self.dropped = 0

    def next_indices(self) -> list[int]:
        shard = self._current_shard()
        left = len(shard) - self.position
        if left < 2:  # the epoch is done, or one pair would be alone: the next epoch starts
            self.dropped += left
            self.epoch, self.position, self._shard = self.epoch + 1, 0, None
            shard = self._current_shard()
        take = shard[self.position:self.position + self.batch_size]
        self.position += len(take)
        return [int(i) for i in take]

    def state_dict(self) -> dict[str, Any]:
        return {**super().state_dict(), "dropped": self.dropped}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        super().load_state_dict(state)
        self.dropped = int(state.get("dropped", 0))


@dataclass(frozen=True)
class InBatchPlan:
    """What the loop is given for an in-batch loss: the batch size it uses and the pairs an epoch trains on."""

    batch_size: int
    train_size: int  # pairs per epoch (the lone last one left out), for the steps per epoch
    notes: tuple[str, ...]


def plan(loss: str, n: int, batch_size: int, world_size: int = 1) -> InBatchPlan:
    """The batch size (capped at the pairs per process) and the pairs an epoch trains, with notes saying so."""
    shard = max(1, n // max(1, world_size))
    b = min(batch_size, shard)
    notes = []
    if batch_size > shard:
        notes.append(f"batch size {batch_size} is more than the {shard} training pairs: each batch holds all {shard} "
                     f"once ({loss} must not meet a pair twice in one batch)")
    return InBatchPlan(b, kept_per_epoch(shard, b) * max(1, world_size), tuple(notes))


def plan_note(loss: str, n: int, batch_size: int, steps: int) -> str | None:
    """How often the lone last batch of an epoch is dropped over ``steps`` steps (None when it never is)."""
    b = min(batch_size, n)
    if n % b != 1 or n < 2:
        return None
    epochs = steps // batches_per_epoch(n, batch_size)
    return (f"the last batch of each epoch would hold one pair alone ({n} training pairs in batches of {b}), which "
            f"{loss} cannot score: it is dropped, {epochs} time(s) in this run (that pair trains in the other "
            f"epochs, whose orders differ)")


def validation_chunks(count: int, batch_size: int, loss: str) -> tuple[list[tuple[int, int]], list[str]]:
    """(start, end) of each validation batch of ``count`` examples, and notes: for an in-batch loss a last batch of
    one is dropped and counted, and with no batch left the validation loss is said to be undefined."""
    chunks = [(i, min(i + batch_size, count)) for i in range(0, count, batch_size)]
    if loss not in IN_BATCH_LOSSES or not chunks or chunks[-1][1] - chunks[-1][0] > 1:
        return chunks, []
    chunks = chunks[:-1]
    if not chunks:
        return [], [undefined_note("validation_loss", f"the {count} held-out example(s) make a batch of one, which "
                                                      f"{loss} cannot score (its loss would be 0 by construction)")]
    return chunks, [f"1 validation example left out of the validation loss: it would be a batch of one, which {loss} "
                    "cannot score"]


def scores_vary(scores: Sequence[float]) -> bool:
    return len(set(float(s) for s in scores)) > 1
