"""A batch for one training step: padded tensors for the model plus the previews.

``collate`` pads the previews' input ids (with the pad id, attention mask 0)
and labels (with -100) to the longest example, through numpy so that large
batches are cheap.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Sequence

import numpy as np
import torch

from lm_workbench.engine.objectives.preview import IGNORE_INDEX, Preview


@dataclass
class Batch:
    """``inputs`` go to the model as keyword arguments; ``labels`` are -100 where not scored.

    ``extras`` holds objective-specific tensors (e.g. the span-boundary
    objective's span positions); ``previews`` has one entry per example.
    """

    inputs: dict[str, torch.Tensor]
    labels: torch.Tensor
    previews: list[Preview]
    extras: dict[str, torch.Tensor] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.previews)

    def to(self, device: Any) -> "Batch":
        move = lambda d: {k: v.to(device) for k, v in d.items()}  # noqa: E731
        return replace(self, inputs=move(self.inputs), labels=self.labels.to(device), extras=move(self.extras))


def pad_rows(rows: Sequence[Sequence[int]], value: int) -> np.ndarray:
    """A (len(rows), longest) int64 array, right-padded with ``value``."""
    width = max((len(r) for r in rows), default=0)
    out = np.full((len(rows), width), value, dtype=np.int64)
    for i, row in enumerate(rows):
        out[i, : len(row)] = row
    return out


def collate(previews: list[Preview], pad_id: int, extras: dict[str, torch.Tensor] | None = None) -> Batch:
    """Pad the previews' inputs and labels into a ``Batch``."""
    for p in previews:
        p.check()
    inputs = pad_rows([p.input_ids for p in previews], pad_id)
    lengths = np.array([len(p.input_ids) for p in previews], dtype=np.int64)
    mask = (np.arange(inputs.shape[1])[None, :] < lengths[:, None]).astype(np.int64)
    labels = pad_rows([p.labels for p in previews], IGNORE_INDEX)
    return Batch(
        inputs={"input_ids": torch.from_numpy(inputs), "attention_mask": torch.from_numpy(mask)},
        labels=torch.from_numpy(labels),
        previews=previews,
        extras=dict(extras or {}),
    )
