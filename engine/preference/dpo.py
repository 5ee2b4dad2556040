"""The DPO loss (Rafailov et al. 2023) and what a run reports of it.

For a prompt x with a chosen answer y_w and a rejected one y_l, each side's log-ratio is the policy's summed
answer log-probability minus the reference model's; the loss is

    -log σ(β · [(log π(y_w|x) - log π_ref(y_w|x)) - (log π(y_l|x) - log π_ref(y_l|x))])

and the implicit rewards are β times each log-ratio. The reward margin is β · (chosen log-ratio - rejected
log-ratio), the preference accuracy the fraction of pairs with a positive margin (0 at step 0, where the policy
is the reference and every margin is exactly 0).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch.nn import functional as F


@dataclass
class DPOTerms:
    """Per pair: the loss, the margin β·(chosen log-ratio - rejected log-ratio) and the two implicit rewards."""

    losses: torch.Tensor
    margins: torch.Tensor
    chosen_rewards: torch.Tensor
    rejected_rewards: torch.Tensor

    def metrics(self) -> dict[str, float]:
        """Means over the pairs: ``loss``, ``reward_margin``, ``preference_accuracy``, ``chosen_reward``,
        ``rejected_reward``."""
        return {"loss": float(self.losses.detach().mean()), "reward_margin": float(self.margins.mean()),
                "preference_accuracy": float((self.margins > 0).float().mean()),
                "chosen_reward": float(self.chosen_rewards.mean()),
                "rejected_reward": float(self.rejected_rewards.mean())}


def dpo_terms(policy_chosen: torch.Tensor, policy_rejected: torch.Tensor, reference_chosen: torch.Tensor,
              reference_rejected: torch.Tensor, beta: float) -> DPOTerms:
    """The DPO loss of each pair from the four summed log-probabilities (each ``[N]``)."""
    chosen_ratio = policy_chosen - reference_chosen
    rejected_ratio = policy_rejected - reference_rejected
    margins = beta * (chosen_ratio - rejected_ratio)
    return DPOTerms(losses=-F.logsigmoid(margins), margins=margins.detach(),
                    chosen_rewards=(beta * chosen_ratio).detach(), rejected_rewards=(beta * rejected_ratio).detach())
