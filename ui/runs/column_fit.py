"""Column widths that fit a table's width: the widest columns give way first, none below a floor.

The runs table sizes its columns to their contents; a long model path or run name would then push the table
wider than the tab, so the Runs tab scrolled sideways (at 1024 × 768 with F5 in particular). ``fit_widths``
caps the widest columns at one common width so that the total fits (the cells elide what no longer shows;
the full text is in the tooltip and the detail line), and leaves narrower tables as they are.
"""

from __future__ import annotations


def fit_widths(widths: list[int], available: int, floor: int = 48) -> list[int]:
    """``widths`` capped at the largest common width that makes their sum fit ``available`` (never below
    ``floor``: with too many columns for the space, every wide one stops at ``floor``)."""
    if available <= 0 or sum(widths) <= available:
        return list(widths)
    low, high = floor, max(widths)
    while low < high:  # the largest cap whose capped sum still fits
        cap = (low + high + 1) // 2
        if sum(min(w, cap) for w in widths) <= available:
            low = cap
        else:
            high = cap - 1
    return [min(w, low) for w in widths]
