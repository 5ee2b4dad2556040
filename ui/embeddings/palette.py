"""Colour groups for the map: a label per point becomes a small set of colours.

A map of 200,000 points cannot give every sentence its own colour (nor its
own scatter item: one item per colour keeps drawing fast). The most frequent
labels get a colour each, in order of size; the rest share one grey
"other" group, and the legend says how many labels it holds.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Sequence

import numpy as np

# Distinct hues first, then lighter/darker variants; picked by hand for a white background.
PALETTE = (
    "#1f6fb4", "#e8741c", "#2a9d3f", "#d0343a", "#8a5cc2", "#8c564b", "#d66fb8", "#17a3b8",
    "#b5a300", "#4d4d4d", "#7fb2e5", "#f4b06b", "#86cf7f", "#f08c8e", "#bba2dd", "#c79b8f",
    "#f2a6d6", "#7fd3df", "#dbd26a", "#2f3d8f", "#7a3d0a", "#0f5c2a", "#6d1a5c", "#3f8f86",
)
OTHER_COLOUR = "#b8bcc4"
MAX_GROUPS = len(PALETTE)


@dataclass(frozen=True)
class ColourGroups:
    codes: np.ndarray  # [n] int: group of each point; len(names) = the "other" group
    names: list[str]  # one per coloured group, largest first
    colours: list[str]  # one per coloured group
    other_count: int  # distinct labels folded into "other"

    @property
    def group_count(self) -> int:
        """Groups including "other" when it is used."""
        return len(self.names) + (1 if self.other_count else 0)

    def name_of(self, code: int) -> str:
        return self.names[code] if code < len(self.names) else f"other ({self.other_count} labels)"

    def colour_of(self, code: int) -> str:
        return self.colours[code] if code < len(self.colours) else OTHER_COLOUR


def colour_groups(labels: Sequence[str | None], max_groups: int = MAX_GROUPS) -> ColourGroups:
    """Group points by label: the ``max_groups`` most frequent labels get colours (ties: first seen)."""
    clean = ["(none)" if lab is None or lab == "" else str(lab) for lab in labels]
    counts = Counter(clean)
    first_seen: dict[str, int] = {}
    for i, lab in enumerate(clean):
        first_seen.setdefault(lab, i)
    ranked = sorted(counts, key=lambda lab: (-counts[lab], first_seen[lab]))
    if len(ranked) > max_groups:  # keep one colour free for "other"
        named = ranked[: max_groups - 1]
    else:
        named = ranked
    code_of = {lab: i for i, lab in enumerate(named)}
    other = len(named)
    codes = np.fromiter((code_of.get(lab, other) for lab in clean), dtype=np.int32, count=len(clean))
    colours = [PALETTE[i % len(PALETTE)] for i in range(len(named))]
    return ColourGroups(codes, named, colours, len(ranked) - len(named))
