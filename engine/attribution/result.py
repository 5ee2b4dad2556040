"""The one shape every attribution method returns (and the CLI prints as JSON)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Attribution:
    """One score per input token for the logit of ``target`` at ``position``.

    ``target_logit`` is the model's pre-softmax logit of the target there. Integrated gradients also give
    ``baseline_logit`` (the same logit with every word embedding zero) and ``completeness_gap``:
    sum(scores) - (target_logit - baseline_logit), zero for the exact integral; more steps shrink it.

    With a foil (``contrast``: "why X and not Y") the scores are of logit(X) − logit(Y); ``target_logit`` stays
    X's, ``contrast_logit`` is Y's, and integrated gradients' ``baseline_logit`` and ``completeness_gap`` refer to
    the difference: sum(scores) - (metric - baseline_logit) with metric = target_logit - contrast_logit.

    ``notes`` (JSON ``notes``, only when there is one): which of the text's tokens the model read when the
    text was longer than its window ("tokens a–b of n").
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
    contrast: str | None = None  # the foil Y: the scores are of logit(X) - logit(Y)
    contrast_id: int | None = None
    contrast_logit: float | None = None
    notes: tuple[str, ...] = ()  # "tokens a–b of n" when the text was longer than the window

    @property
    def metric(self) -> float:
        """What the scores explain: the target's logit, minus the foil's with one."""
        return self.target_logit - (self.contrast_logit if self.contrast_logit is not None else 0.0)

    def to_dict(self) -> dict:
        data = {"method": self.method, "tokens": self.tokens, "scores": self.scores, "target": self.target,
                "target_id": self.target_id, "position": self.position, "target_logit": self.target_logit}
        if self.contrast_id is not None:
            data.update(contrast=self.contrast, contrast_id=self.contrast_id, contrast_logit=self.contrast_logit)
        if self.baseline_logit is not None:
            data["baseline_logit"] = self.baseline_logit
            data["completeness_gap"] = self.completeness_gap
        if self.notes:
            data["notes"] = list(self.notes)
        return data
