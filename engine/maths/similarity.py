"""How alike two representations of the same ``n`` items are (rows are items, columns features).

Linear CKA (Kornblith et al. 2019) compares them as a whole, invariant to rotations and isotropic scaling:
with column-centred ``X`` and ``Y``, ``CKA = ||YᵀX||²_F / (||XᵀX||_F · ||YᵀY||_F)``; 1 means the same
geometry. The widths may differ. The mean cosine compares each item's two vectors directly (same width).
Fine-tuning's layer shift (``lm_workbench.engine.finetune.layer_shift``) and the Compare tab's layer × layer CKA
(``lm_workbench.engine.compare.cka``) both use them.
"""

from __future__ import annotations

import numpy as np

from lm_workbench.engine.errors import WorkbenchError


def linear_cka(x: np.ndarray, y: np.ndarray) -> float:
    """Linear CKA of two representations of the same ``n`` items (``n × d₁`` and ``n × d₂``)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.shape[0] != y.shape[0] or x.shape[0] < 2:
        raise WorkbenchError(f"CKA needs the same n >= 2 items in both, not {x.shape[0]} and {y.shape[0]}")
    x = x - x.mean(axis=0)
    y = y - y.mean(axis=0)
    cross = np.linalg.norm(y.T @ x) ** 2
    norms = np.linalg.norm(x.T @ x) * np.linalg.norm(y.T @ y)
    return float(cross / norms) if norms > 0 else float("nan")


def mean_cosine(x: np.ndarray, y: np.ndarray) -> float:
    """The mean over rows of the cosine between ``x[i]`` and ``y[i]`` (same width)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    norms = np.linalg.norm(x, axis=1) * np.linalg.norm(y, axis=1)
    ok = norms > 0
    return float(np.mean(np.sum(x[ok] * y[ok], axis=1) / norms[ok])) if ok.any() else float("nan")
