"""Attribution patching beside exact patching: how well the gradient approximation ranks the cells.

Plain Python (no numpy, no torch), so the window's state and the CLI read it cheaply: the Pearson correlation of
the two [layers][tokens] matrices' cells and the cells where they differ most.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

DISAGREEMENTS = 5  # the largest |approximate − exact| cells reported


@dataclass(frozen=True)
class Disagreement:
    layer: int
    position: int
    token: str
    approximate: float
    exact: float

    @property
    def difference(self) -> float:
        return self.approximate - self.exact

    def to_dict(self) -> dict:
        return {"layer": self.layer, "position": self.position, "token": self.token,
                "approximate": self.approximate, "exact": self.exact, "difference": self.difference}


@dataclass(frozen=True)
class Comparison:
    pearson: float | None  # None when either matrix is constant (the correlation is undefined)
    disagreements: list[Disagreement]  # largest |approximate − exact| first

    def to_dict(self) -> dict:
        return {"pearson": self.pearson, "disagreements": [d.to_dict() for d in self.disagreements]}


def pearson(xs: list[float], ys: list[float]) -> float | None:
    """The Pearson correlation of two equally long lists; None when either has no spread."""
    n = len(xs)
    if n != len(ys) or n < 2:
        return None
    mx, my = math.fsum(xs) / n, math.fsum(ys) / n
    sxy = math.fsum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = math.fsum((x - mx) ** 2 for x in xs)
    syy = math.fsum((y - my) ** 2 for y in ys)
    if sxx <= 0.0 or syy <= 0.0:
        return None
    return max(-1.0, min(1.0, sxy / math.sqrt(sxx * syy)))


def compare(approximate: list[list[float]], exact: list[list[float]], tokens: list[str],
            top: int = DISAGREEMENTS) -> Comparison:
    """The two matrices' correlation over the layers both have, and their ``top`` largest disagreements."""
    rows = min(len(approximate), len(exact))
    cells = [(layer, position, approximate[layer][position], exact[layer][position])
             for layer in range(rows) for position in range(min(len(approximate[layer]), len(exact[layer])))]
    r = pearson([c[2] for c in cells], [c[3] for c in cells])
    worst = sorted(cells, key=lambda c: -abs(c[2] - c[3]))[:top]
    return Comparison(r, [Disagreement(layer, position, tokens[position] if position < len(tokens) else str(position),
                                       a, e) for layer, position, a, e in worst])
