"""How far float32 rounding alone can move a recovered fraction of activation patching.

A metric is a difference of two float32 logits. Computed in batches of other shapes (the test's own passes are
batches of one row, the product's hold a row per position) a matrix product may sum in another order, so each
metric may be off by a few units in the last place of float32 at the scale of the hidden states, max(1,
|metric|). A recovered fraction (patched − corrupt) / (clean − corrupt) carries two such errors over the gap
|clean − corrupt|; with the tiny random-weight test models that gap is 1e-3 .. 5e-2, so the bound, not a fixed
1e-4 or 1e-5, says what "equal" means (a fixed one passed on one CPU and failed on another).
"""

from __future__ import annotations

FLOAT32_EPS = 2.0 ** -23  # one unit in the last place at 1.0
METRIC_ULPS = 4  # seen: 0.3 .. 1.5 units between batch shapes on AMD EPYC and Intel Xeon CPUs


def effect_tolerance(clean: float, corrupt: float) -> float:
    """The largest difference rounding can make to a recovered fraction between the clean and corrupt metrics."""
    scale = max(1.0, abs(clean), abs(corrupt))
    return 2 * METRIC_ULPS * FLOAT32_EPS * scale / abs(clean - corrupt)
