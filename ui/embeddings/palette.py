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

from lm_workbench.ui import theme


@dataclass(frozen=True)
class ColourGroups:
    codes: np.ndarray  # [n] int: group of each point; len(names) = the "other" group
    names: list[str]  # one per coloured group, largest first
    colours: list[str]  # one per coloured group
    other_count: int  # distinct labels folded into "other"
    other_colour: str

    @property
    def group_count(self) -> int:
        """Groups including "other" when it is used."""
        return len(self.names) + (1 if self.other_count else 0)

    def name_of(self, code: int) -> str:
        return self.names[code] if code < len(self.names) else f"other ({self.other_count} labels)"

    def colour_of(self, code: int) -> str:
        return self.colours[code] if code < len(self.colours) else self.other_colour


def colour_groups(labels: Sequence[str | None], max_groups: int | None = None,
                  first: Sequence[str] = ()) -> ColourGroups:
    """Group points by label: the ``max_groups`` most frequent labels get colours (ties: first seen); the labels
    in ``first`` that occur (what the view or a lecture step names: its chosen words) come before the rest,
    so a small palette (the presentation's eight colours) never greys out what a caption talks about.

    Colours come from the theme's ``group_colors`` (one group per colour by default) and ``other_group``.
    """
    palette = theme.current().colours.group_colors
    max_groups = len(palette) if max_groups is None else max_groups
    clean = ["(none)" if lab is None or lab == "" else str(lab) for lab in labels]
    counts = Counter(clean)
    first_seen: dict[str, int] = {}
    for i, lab in enumerate(clean):
        first_seen.setdefault(lab, i)
    named_first = [lab for lab in dict.fromkeys(str(f) for f in first) if lab in counts]
    ranked = named_first + sorted((lab for lab in counts if lab not in set(named_first)),
                                  key=lambda lab: (-counts[lab], first_seen[lab]))
    if len(ranked) > max_groups:  # keep one colour free for "other"
        named = ranked[: max_groups - 1]
    else:
        named = ranked
    code_of = {lab: i for i, lab in enumerate(named)}
    other = len(named)
    codes = np.fromiter((code_of.get(lab, other) for lab in clean), dtype=np.int32, count=len(clean))
    colours = [palette[i % len(palette)] for i in range(len(named))]
    return ColourGroups(codes, named, colours, len(ranked) - len(named), theme.current().colours.other_group)
