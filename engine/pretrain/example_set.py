"""Packed examples on disk: one flat uint32 token file plus an int64 offsets index.

Example ``i`` is ``tokens[offsets[i]:offsets[i + 1]]``. The token file is
memory-mapped read-only, so a dataset of any size costs only the pages a batch
touches, and several processes (DDP ranks, a spawned job) share them through
the page cache. ``ExampleWriter`` appends examples in chunks while the corpus
streams in, and counts token frequencies on the way (for the unigram entropy).
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import numpy as np

TOKEN_DTYPE = np.uint32


def _paths(folder: Path, name: str) -> tuple[Path, Path]:
    return folder / f"{name}.tokens.bin", folder / f"{name}.offsets.npy"


class ExampleWriter:
    """Appends examples (lists of ids) to ``<name>.tokens.bin``; ``close()`` writes the offsets."""

    def __init__(self, folder: Path, name: str, vocab_size: int, count_tokens: bool = False):
        self.tokens_path, self.offsets_path = _paths(folder, name)
        self._file = open(self.tokens_path, "wb")
        self._offsets = [0]
        self._pending: list[list[int]] = []
        self.counts = np.zeros(vocab_size, dtype=np.int64) if count_tokens else None

    @property
    def examples(self) -> int:
        return len(self._offsets) - 1 + len(self._pending)

    @property
    def tokens(self) -> int:
        return self._offsets[-1] + sum(len(e) for e in self._pending)

    def add(self, example: list[int]) -> None:
        self._pending.append(example)

    def flush(self) -> None:
        """Write the pending examples in one go (and count their tokens)."""
        if not self._pending:
            return
        flat = np.fromiter((t for e in self._pending for t in e), dtype=np.int64, count=sum(map(len, self._pending)))
        if len(flat) and (flat.min() < 0 or flat.max() > np.iinfo(TOKEN_DTYPE).max):
            raise ValueError("token id out of the uint32 range")
        flat.astype(TOKEN_DTYPE).tofile(self._file)
        for example in self._pending:
            self._offsets.append(self._offsets[-1] + len(example))
        if self.counts is not None and len(flat):
            self.counts += np.bincount(flat, minlength=len(self.counts))[: len(self.counts)]
        self._pending = []

    def close(self) -> None:
        self.flush()
        self._file.close()
        np.save(self.offsets_path, np.asarray(self._offsets, dtype=np.int64))

    def abort(self) -> None:
        self._file.close()


class ExampleSet:
    """Read-only packed examples: ``len(s)``, ``s[i] -> list[int]`` (ids with the family's special tokens).

    Picklable (it reopens its files after unpickling), so a spawned process
    or a DDP rank can receive it.
    """

    def __init__(self, folder: Path, name: str):
        self.folder = Path(folder)
        self.name = name
        self._open()

    def _open(self) -> None:
        tokens_path, offsets_path = _paths(self.folder, self.name)
        self.offsets = np.load(offsets_path)  # [n + 1] int64
        if tokens_path.stat().st_size:
            self.tokens = np.memmap(tokens_path, dtype=TOKEN_DTYPE, mode="r")  # [total tokens] uint32
        else:  # numpy cannot map an empty file
            self.tokens = np.zeros(0, dtype=TOKEN_DTYPE)

    def __getstate__(self) -> dict:
        return {"folder": self.folder, "name": self.name}

    def __setstate__(self, state: dict) -> None:
        self.folder, self.name = state["folder"], state["name"]
        self._open()

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, index: int) -> list[int]:
        n = len(self)
        i = int(index)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"example {index} of {n}")
        return self.tokens[self.offsets[i]:self.offsets[i + 1]].tolist()

    def __iter__(self) -> Iterator[list[int]]:
        for i in range(len(self)):
            yield self[i]

    def lengths(self) -> np.ndarray:
        """Tokens per example, [n] int64."""
        return np.diff(self.offsets)


__all__ = ["ExampleSet", "ExampleWriter", "TOKEN_DTYPE"]
