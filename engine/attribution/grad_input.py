"""Gradient × input: for each input token, sum over d of e_d · ∂(target logit)/∂e_d.

``e`` is the token's row of the input (word) embedding matrix, before position embeddings and any LayerNorm
(``targets.position_logits`` feeds the model those rows as ``inputs_embeds``); the target logit is the
pre-softmax logit of the target token at the predicted position; with a foil Y (``Target.contrast_id``) it is
logit(X) − logit(Y), whose map is the difference of X's and Y's maps (the gradient is linear). One forward and
one backward pass.
"""

from __future__ import annotations

import torch

from lm_workbench.engine.attribution.names import GRAD_INPUT
from lm_workbench.engine.attribution.result import Attribution
from lm_workbench.engine.logit_target.target import Target, position_logits, target_metric, word_embeddings
from lm_workbench.engine.models.loading import LoadedModel


def embedding_gradient(loaded: LoadedModel, target: Target, embeddings: torch.Tensor
                       ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(the metric [B]: logit(X), or logit(X) − logit(Y) with a foil; its gradients [B, T, H]; the logits of X
    and of the foil [B, 2], the foil's column NaN without one) for a batch of word embeddings [B, T, H].

    Gradients are taken with respect to the embeddings only (``torch.autograd.grad``): the model's
    parameters collect none."""
    with torch.enable_grad():
        embeddings = embeddings.detach().requires_grad_(True)
        logits = position_logits(loaded, target.site, embeddings)
        metric = target_metric(logits, target)
        (grad,) = torch.autograd.grad(metric.sum(), embeddings)
    logits = logits.detach()
    nan = torch.full_like(logits[:, 0], float("nan"))
    foil = logits[:, target.contrast_id] if target.contrast_id is not None else nan
    return metric.detach(), grad.detach(), torch.stack([logits[:, target.id], foil], dim=1)


def contrast_fields(target: Target, pair: torch.Tensor) -> dict:
    """The ``Attribution`` keywords a foil adds (none without one), from a [2] row of X's and Y's logits."""
    if target.contrast_id is None:
        return {}
    return {"contrast": target.contrast, "contrast_id": target.contrast_id, "contrast_logit": float(pair[1])}


def grad_input(loaded: LoadedModel, target: Target) -> Attribution:
    """Gradient × input scores for ``target`` (see ``targets.resolve_target``); with a foil, of the logit
    difference."""
    embeddings = word_embeddings(loaded, target.site)
    _metric, grad, pair = embedding_gradient(loaded, target, embeddings)
    scores = (embeddings.double() * grad.double()).sum(-1)[0]
    return Attribution(GRAD_INPUT, target.site.tokens, [float(s) for s in scores.cpu()], target.token, target.id,
                       target.site.position, float(pair[0, 0]), **contrast_fields(target, pair[0]))
