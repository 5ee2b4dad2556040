"""The loop's default data order: a seeded per-epoch permutation, sharded by rank, resumable.

Same protocol as ``lm_workbench.engine.pretrain.dataset.ExampleSampler`` (which the
pre-training job passes as ``sampler_factory``): ``next_indices()``,
``state_dict()`` (JSON-able) and ``load_state_dict()``. Epoch ``e`` visits
``np.random.default_rng([seed, e]).permutation(n)[rank::world_size]`` in
order; a batch that runs past the end of a shard continues into the next
epoch, so every batch has ``batch_size`` indices even on a tiny data set.
"""

from __future__ import annotations

from typing import Any, Callable, Protocol

import numpy as np

from lm_workbench.engine.errors import WorkbenchError


class Sampler(Protocol):
    def next_indices(self) -> list[int]: ...
    def state_dict(self) -> dict[str, Any]: ...
    def load_state_dict(self, state: dict[str, Any]) -> None: ...


SamplerFactory = Callable[[int, int, int, int, int], Sampler]  # (n, batch_size, seed, rank, world_size)


class SeededSampler:
    """Shuffled epochs without replacement; state is (epoch, position within this rank's shard)."""

    def __init__(self, n: int, batch_size: int, seed: int, rank: int = 0, world_size: int = 1):
        if n < 1:
            raise WorkbenchError("no training examples: the training set is empty")
        self.n, self.batch_size, self.seed = int(n), int(batch_size), int(seed)
        self.rank, self.world_size = int(rank), int(world_size)
        if self.n < self.world_size:
            raise WorkbenchError(f"{self.n} training example(s) cannot be shared by {self.world_size} processes")
        self.epoch = 0
        self.position = 0
        self._shard: np.ndarray | None = None

    def _current_shard(self) -> np.ndarray:
        if self._shard is None:
            order = np.random.default_rng([self.seed, self.epoch]).permutation(self.n)
            self._shard = order[self.rank::self.world_size]
        return self._shard

    def next_indices(self) -> list[int]:
        out: list[int] = []
        while len(out) < self.batch_size:
            shard = self._current_shard()
            take = shard[self.position:self.position + self.batch_size - len(out)]
            out.extend(int(i) for i in take)
            self.position += len(take)
            if self.position >= len(shard):
                self.epoch, self.position, self._shard = self.epoch + 1, 0, None
        return out

    def state_dict(self) -> dict[str, Any]:
        return {"epoch": self.epoch, "position": self.position}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.epoch, self.position, self._shard = int(state["epoch"]), int(state["position"]), None
