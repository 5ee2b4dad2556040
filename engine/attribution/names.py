"""Attribution's names that the window and the CLI read without importing numpy or torch."""

from __future__ import annotations

from lm_workbench.engine.logit_target.names import MAX_OUTPUT_POSITION  # noqa: F401 (the window reads it here)

GRAD_INPUT = "grad-input"
INTEGRATED_GRADIENTS = "integrated-gradients"
ROLLOUT = "rollout"
FLOW = "flow"
METHODS = (GRAD_INPUT, INTEGRATED_GRADIENTS, ROLLOUT, FLOW)
TARGET_FREE = (ROLLOUT, FLOW)  # read the attention only: the same scores for any target, so no contrast
DEFAULT_STEPS = 32  # integrated gradients: intervals along the straight path (the trapezoidal rule)
