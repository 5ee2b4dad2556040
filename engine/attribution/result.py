"""The one shape every attribution method returns (and the CLI prints as JSON)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Attribution:
    """One score per input token for the logit of ``target`` at ``position``.

    ``target_logit`` is the model's pre-softmax logit of the target there. Integrated gradients also give
    ``baseline_logit`` (the same logit with every word embedding zero) and ``completeness_gap``:
    sum(scores) - (target_logit - baseline_logit), zero for the exact integral; more steps shrink it.
    """

    method: str
    tokens: list[str]
    scores: list[float]
    target: str
    target_id: int
    position: int
    target_logit: float
    baseline_logit: float | None = None
    completeness_gap: float | None = None
    steps: int | None = None  # integrated gradients: intervals along the path

    def to_dict(self) -> dict:
        data = {"method": self.method, "tokens": self.tokens, "scores": self.scores, "target": self.target,
                "target_id": self.target_id, "position": self.position, "target_logit": self.target_logit}
        if self.baseline_logit is not None:
            data["baseline_logit"] = self.baseline_logit
            data["completeness_gap"] = self.completeness_gap
        return data
