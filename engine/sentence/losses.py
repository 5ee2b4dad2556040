"""The sentence task's losses, on sentence vectors (each [B, H]) from one shared encoder (a siamese network).

- ``triplet`` (Schroff et al. 2015 as S-BERT uses it): mean over the batch of max(‖a − p‖ − ‖a − n‖ + ε, 0),
  Euclidean distances, margin ε;
- ``cosine`` (S-BERT's STS recipe): the mean squared error between cos(u, v) and the gold score / max score;
- ``cosent`` (Su 2022): log(1 + Σ over pairs (i, j) with score_i > score_j of exp(λ·(cos_j − cos_i))), λ = 20;
- ``mnrl`` (multiple negatives ranking, Henderson et al. 2017): cross-entropy of λ·cos(a_i, c_j) over the
  candidates c = every positive of the batch (and every hard negative, when the data has them), the right one
  being p_i; λ = 20.

Written here rather than taken from sentence-transformers (whose modules want its own model object); the
tests check each against its formula computed independently.
"""

from __future__ import annotations

import torch
from torch.nn import functional as F

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.sentence.names import MNRL_SCALE, SENTENCE_LOSSES, TRIPLET_MARGIN

COSENT_SCALE = 20.0


def triplet_loss(anchor: torch.Tensor, positive: torch.Tensor, negative: torch.Tensor,
                 margin: float = TRIPLET_MARGIN) -> torch.Tensor:
    d_pos = (anchor - positive).norm(dim=-1)
    d_neg = (anchor - negative).norm(dim=-1)
    return F.relu(d_pos - d_neg + margin).mean()


def cosine_loss(first: torch.Tensor, second: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """``target`` already scaled to the cosine's range (score / max)."""
    return F.mse_loss(F.cosine_similarity(first, second, dim=-1), target.to(first.dtype))


def cosent_loss(first: torch.Tensor, second: torch.Tensor, scores: torch.Tensor,
                scale: float = COSENT_SCALE) -> torch.Tensor:
    cos = F.cosine_similarity(first, second, dim=-1) * scale  # [B]
    diff = cos[None, :] - cos[:, None]  # [i, j] = λ·(cos_j − cos_i)
    ordered = scores[:, None] > scores[None, :]  # pairs with score_i > score_j
    terms = diff[ordered]
    zero = torch.zeros(1, dtype=cos.dtype, device=cos.device)  # the "1 +" inside the log
    return torch.logsumexp(torch.cat([zero, terms]), dim=0)


def mnrl_loss(anchor: torch.Tensor, positive: torch.Tensor, negative: torch.Tensor | None = None,
              scale: float = MNRL_SCALE) -> torch.Tensor:
    candidates = positive if negative is None else torch.cat([positive, negative], dim=0)
    sims = F.normalize(anchor, dim=-1) @ F.normalize(candidates, dim=-1).T * scale  # [B, B or 2B]
    return F.cross_entropy(sims, torch.arange(anchor.shape[0], device=anchor.device))


def sentence_loss(name: str, vectors: list[torch.Tensor], scores: torch.Tensor, *, margin: float = TRIPLET_MARGIN,
                  score_max: float = 1.0) -> torch.Tensor:
    """Loss ``name`` on one batch: ``vectors`` are the columns' sentence vectors (2 or 3 tensors [B, H])."""
    if name == "triplet":
        if len(vectors) < 3:
            raise WorkbenchError("the triplet loss needs a negative for every anchor")
        return triplet_loss(vectors[0], vectors[1], vectors[2], margin)
    if name == "cosine":
        return cosine_loss(vectors[0], vectors[1], scores / score_max)
    if name == "cosent":
        return cosent_loss(vectors[0], vectors[1], scores)
    if name == "mnrl":
        return mnrl_loss(vectors[0], vectors[1], vectors[2] if len(vectors) > 2 else None)
    raise WorkbenchError(f"unknown loss {name!r}; choose one of {', '.join(SENTENCE_LOSSES)}")
