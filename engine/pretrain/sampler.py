"""Which examples each training step uses: seeded epochs, exact resume, DDP sharding.

The examples form one endless stream: epoch ``e`` is the permutation
``np.random.default_rng([seed, e]).permutation(n)``, epochs follow each other
and a batch may straddle two. Every step takes the next ``world_size *
batch_size`` indices of the stream (the global batch) and rank ``r`` uses its
``r``-th slice of ``batch_size``. So all ranks step in lockstep with full
batches, together they see every example exactly once per epoch, and the
position in the stream (epoch, position) is all a checkpoint needs: resuming
from ``state_dict()`` continues the very same sequence, even with another
number of ranks.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lm_workbench.engine.errors import WorkbenchError


class ExampleSampler:
    def __init__(self, n: int, batch_size: int, seed: int, rank: int = 0, world_size: int = 1):
        if n < 1:
            raise WorkbenchError("there are no examples to train on")
        if batch_size < 1:
            raise WorkbenchError(f"batch size must be at least 1, not {batch_size}")
        if world_size < 1 or not 0 <= rank < world_size:
            raise ValueError(f"rank {rank} of world size {world_size}")
        self.n, self.batch_size, self.seed = int(n), int(batch_size), int(seed)
        self.rank, self.world_size = int(rank), int(world_size)
        self.epoch = 0
        self.position = 0  # index into this epoch's permutation of the next global index
        self._perm_epoch = -1
        self._perm = np.zeros(0, dtype=np.int64)

    def permutation(self, epoch: int) -> np.ndarray:
        """Epoch ``epoch``'s order of the examples, [n] int64."""
        if epoch != self._perm_epoch:
            self._perm = np.random.default_rng([self.seed, epoch]).permutation(self.n)
            self._perm_epoch = epoch
        return self._perm

    def _take(self, count: int) -> list[int]:
        """The next ``count`` indices of the stream, advancing it."""
        out: list[int] = []
        while count:
            perm = self.permutation(self.epoch)
            take = min(count, self.n - self.position)
            out.extend(int(i) for i in perm[self.position:self.position + take])
            self.position += take
            count -= take
            if self.position == self.n:
                self.epoch += 1
                self.position = 0
        return out

    def next_indices(self) -> list[int]:
        """This rank's ``batch_size`` example indices for the next step."""
        global_batch = self._take(self.world_size * self.batch_size)
        start = self.rank * self.batch_size
        return global_batch[start:start + self.batch_size]

    def state_dict(self) -> dict[str, Any]:
        """JSON-able position in the stream (plus what it was made for, checked on load)."""
        return {"epoch": self.epoch, "position": self.position, "n": self.n, "seed": self.seed,
                "batch_size": self.batch_size, "world_size": self.world_size}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        n = int(state.get("n", self.n))
        if n != self.n:
            raise WorkbenchError(f"the checkpoint was trained on {n} examples, this dataset has {self.n}; "
                                 "resume with the same corpus, tokenizer and sequence length")
        if int(state.get("seed", self.seed)) != self.seed:
            raise WorkbenchError("the checkpoint's data order used another seed; resume with the same seed")
        epoch, position = int(state["epoch"]), int(state["position"])
        if epoch < 0 or not 0 <= position < self.n:
            raise WorkbenchError(f"bad sampler state: epoch {epoch}, position {position}")
        self.epoch, self.position = epoch, position


__all__ = ["ExampleSampler"]
