"""What an objective did to one example, position by position, for people to look at.

A ``Preview`` is the per-example record every objective returns next to the
tensors: the original token ids, the ids the model is fed, the labels it is
scored on (``-100`` where a position is not scored) and a ``PositionKind``
for each input position, so a view can colour "masked", "random", "kept" and
so on without knowing the objective.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Sequence

import numpy as np

IGNORE_INDEX = -100  # a label that is not scored (the convention of torch's cross-entropy)


class PositionKind(str, Enum):
    """What happened at one position."""

    UNCHANGED = "unchanged"  # not selected: the original token, not scored by corrupting objectives
    MASKED = "masked"  # replaced by the mask token (or, for originals, hidden and asked back)
    RANDOM = "random"  # selected and replaced by a random vocabulary token
    KEPT = "kept"  # selected and left as it is (still scored)
    DELETED = "deleted"  # removed from the input; recorded against the original position
    INSERTED = "inserted"  # a token with no original (e.g. a mask for a zero-length span)
    MOVED = "moved"  # the original token, at another place (sentence permutation, rotation)
    SENTINEL = "sentinel"  # a sentinel token standing for a span (T5)


# Small integer codes for vectorised code: KIND_CODES[code] is the kind.
KIND_CODES: tuple[PositionKind, ...] = tuple(PositionKind)
CODE = {kind: code for code, kind in enumerate(KIND_CODES)}


def kinds_from_codes(codes: Sequence[int] | np.ndarray) -> list[PositionKind]:
    """Kinds from an array of codes (see ``CODE``)."""
    table = KIND_CODES
    return [table[c] for c in np.asarray(codes, dtype=np.int64).tolist()]


@dataclass
class Preview:
    """One example before and after the objective.

    ``kinds[i]`` describes ``input_ids[i]``. ``labels`` is scored position by
    position against ``input_ids`` when ``labels_aligned`` (encoders and
    decoders); for sequence-to-sequence objectives it is the decoder's target,
    a sequence of its own. ``original_kinds[j]`` says what happened to
    ``original[j]`` (that is where deletions show); ``origin[i]`` is the
    original position input ``i`` came from (-1 for tokens with none);
    ``spans`` lists the corrupted spans in the order they were drawn, each as
    (input position where it starts, number of original tokens it covers).
    ``segments[i]`` is the segment (0 = A, 1 = B) of input ``i`` for sentence-pair
    objectives (next-sentence prediction), None for everything else.
    """

    original: list[int]
    input_ids: list[int]
    labels: list[int]
    kinds: list[PositionKind]
    original_kinds: list[PositionKind] = field(default_factory=list)
    origin: list[int] = field(default_factory=list)
    spans: list[tuple[int, int]] = field(default_factory=list)
    labels_aligned: bool = True
    segments: list[int] | None = None

    def __post_init__(self) -> None:
        if not self.original_kinds:
            self.original_kinds = [PositionKind.UNCHANGED] * len(self.original)
        if not self.origin and len(self.input_ids) == len(self.original):
            self.origin = list(range(len(self.input_ids)))

    def check(self) -> None:
        """Raise ValueError when the fields disagree in length (a bug in the objective)."""
        if len(self.kinds) != len(self.input_ids):
            raise ValueError(f"{len(self.kinds)} kinds for {len(self.input_ids)} input tokens")
        if self.labels_aligned and len(self.labels) != len(self.input_ids):
            raise ValueError(f"{len(self.labels)} labels for {len(self.input_ids)} input tokens")
        if len(self.original_kinds) != len(self.original):
            raise ValueError(f"{len(self.original_kinds)} original kinds for {len(self.original)} tokens")
        if self.origin and len(self.origin) != len(self.input_ids):
            raise ValueError(f"{len(self.origin)} origins for {len(self.input_ids)} input tokens")
        if self.segments is not None and len(self.segments) != len(self.input_ids):
            raise ValueError(f"{len(self.segments)} segment ids for {len(self.input_ids)} input tokens")

    @property
    def scored_positions(self) -> list[int]:
        """Indices into ``labels`` that are scored."""
        return [i for i, label in enumerate(self.labels) if label != IGNORE_INDEX]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: kinds as their string values."""
        out = {
            "original": list(self.original),
            "input_ids": list(self.input_ids),
            "labels": list(self.labels),
            "kinds": [k.value for k in self.kinds],
            "original_kinds": [k.value for k in self.original_kinds],
            "origin": list(self.origin),
            "spans": [list(s) for s in self.spans],
            "labels_aligned": self.labels_aligned,
        }
        if self.segments is not None:
            out["segments"] = list(self.segments)
        return out
