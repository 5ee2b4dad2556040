"""Column widths that fit a table's width: the widest columns give way first, none below a floor.

The runs table sizes its columns to their contents; a long model path or run name would then push the table
wider than the tab, so the Runs tab scrolled sideways (at 1024 × 768 with F5 in particular). ``fit_widths``
caps the widest columns at one common width so that the total fits (the cells elide what no longer shows;
the full text is in the tooltip and the detail line), and leaves narrower tables as they are.
"""

from __future__ import annotations


def fit_widths(widths: list[int], available: int, floor: int | list[int] = 48) -> list[int]:
    """``widths`` capped at the largest common width that makes their sum fit ``available``, never below a
    column's floor (``floor``: one for all, or one per column, e.g. what its title needs on two lines; with too
    many columns for the space, every wide one stops at its floor and the table scrolls)."""
    floors = [floor] * len(widths) if isinstance(floor, int) else list(floor)
    if len(floors) != len(widths):
        raise ValueError(f"{len(floors)} floors for {len(widths)} columns")
    if available <= 0 or sum(widths) <= available:
        return list(widths)

    def capped(cap: int) -> list[int]:
        return [min(w, max(cap, f)) for w, f in zip(widths, floors)]

    low, high = min(floors), max(widths)
    while low < high:  # the largest cap whose capped sum still fits
        cap = (low + high + 1) // 2
        if sum(capped(cap)) <= available:
            low = cap
        else:
            high = cap - 1
    return capped(low)
