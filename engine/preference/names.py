"""Preference tuning's names that the window, the CLI and the specs read without importing torch."""

from __future__ import annotations

TASK = "preference"
DEFAULT_BETA = 0.1  # DPO's β when none is given (Rafailov et al. 2023 used 0.1 to 0.5)
# The metrics of ``train`` and ``validation`` in a preference run's summary (means over the pairs).
METRIC_KEYS = ("loss", "reward_margin", "preference_accuracy")
# The run store's metrics a preference run logs: per step (its batch), and per evaluation (the validation pairs).
STEP_METRICS = ("loss", "reward_margin", "preference_accuracy", "chosen_reward", "rejected_reward")
EVAL_METRICS = ("validation_loss", "validation_reward_margin", "validation_preference_accuracy",
                "validation_chosen_preferred", "validation_logp_margin")
