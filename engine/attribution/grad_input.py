"""Gradient × input: for each input token, sum over d of e_d · ∂(target logit)/∂e_d.

``e`` is the token's row of the input (word) embedding matrix, before position embeddings and any LayerNorm
(``targets.position_logits`` feeds the model those rows as ``inputs_embeds``); the target logit is the
pre-softmax logit of the target token at the predicted position. One forward and one backward pass.
"""

from __future__ import annotations

import torch

from engine.attribution.names import GRAD_INPUT
from engine.attribution.result import Attribution
from engine.attribution.targets import Target, position_logits, word_embeddings
from engine.models.loading import LoadedModel


def embedding_gradient(loaded: LoadedModel, target: Target,
                       embeddings: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(target logits [B], their gradients [B, T, H]) for a batch of word embeddings [B, T, H].

    Gradients are taken with respect to the embeddings only (``torch.autograd.grad``): the model's
    parameters collect none."""
    with torch.enable_grad():
        embeddings = embeddings.detach().requires_grad_(True)
        logits = position_logits(loaded, target.site, embeddings)[:, target.id]
        (grad,) = torch.autograd.grad(logits.sum(), embeddings)
    return logits.detach(), grad.detach()


def grad_input(loaded: LoadedModel, target: Target) -> Attribution:
    """Gradient × input scores for ``target`` (see ``targets.resolve_target``)."""
    embeddings = word_embeddings(loaded, target.site)
    logit, grad = embedding_gradient(loaded, target, embeddings)
    scores = (embeddings.double() * grad.double()).sum(-1)[0]
    return Attribution(GRAD_INPUT, target.site.tokens, [float(s) for s in scores.cpu()], target.token, target.id,
                       target.site.position, float(logit[0]))
