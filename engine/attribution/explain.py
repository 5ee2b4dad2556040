"""What a view shows when asked "why this prediction": an attribution and, beside it, the raw attention.

``explain_job`` attributes a target (``targets``, ``classifier``, ``prompt``) with a method and reads the
attention row of the predicted position at one layer, averaged over heads: for decoders, masked LMs and
classifiers the self-attention of that layer; for an encoder-decoder the cross-attention of that decoder
layer at the output position (a row over the encoder's tokens, as the attribution is). ``prediction_target``
builds the target for ids a view already holds (a decoder's prompt ids, a masked text's ids and one mask
position, an encoder-decoder's text) and the token it shows (a candidate id, or the model's top token).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generator

import torch

from lm_workbench.engine.attribution.attribute import attribute_target_job
from lm_workbench.engine.attribution.names import DEFAULT_STEPS, GRAD_INPUT
from lm_workbench.engine.attribution.result import Attribution
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.logit_target.target import (
    PredictionSite, Target, prediction_site, resolve_target, second_choice, site_from_ids, token_name,
    vocabulary_token,
)
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, Progress


@dataclass(frozen=True)
class Explanation:
    attribution: Attribution
    layer: int  # the layer whose attention ``attention`` is
    layers: int  # how many layers there are to choose from
    attention: list[float] | None  # per input token; None when the model returns no attention weights
    kind: str = "next-token"  # the site's kind: next-token, mask, seq2seq (position: the output's), classifier


def attention_row(loaded: Any, site: PredictionSite, layer: int) -> tuple[list[float] | None, int]:
    """(the attention row of ``site.position`` at ``layer``, averaged over heads, or None; the layer count).

    A negative ``layer`` counts from the top (-1: the last layer)."""
    seq2seq = site.kind == "seq2seq"
    extra = {"decoder_input_ids": site.decoder_ids} if seq2seq else {}
    try:
        with loaded.attention_implementation("eager"), torch.inference_mode():
            out = loaded.model(**site.inputs, **extra, output_attentions=True)
    except (TypeError, ValueError):
        return None, 0
    stack = getattr(out, "cross_attentions", None) if seq2seq else getattr(out, "attentions", None)
    if not stack or any(a is None for a in stack):
        return None, 0
    count = len(stack)
    if not -count <= layer < count:
        raise WorkbenchError(f"the layer is between 0 and {count - 1}, not {layer}")
    weights = stack[layer][0].double().mean(0)  # [queries, keys]
    return [float(v) for v in weights[site.position].cpu()], count


def explain_job(loaded: Any, target: Target, method: str = GRAD_INPUT, steps: int = DEFAULT_STEPS,
                  layer: int = -1, cancel: CancelToken = NEVER_CANCELLED
                  ) -> Generator[Progress, None, Explanation]:
    """The attribution of ``target`` by ``method`` and the raw attention row at ``layer``; a job."""
    attribution = yield from attribute_target_job(loaded, target, method, steps, cancel)
    cancel.check()
    row, count = attention_row(loaded, target.site, layer)
    return Explanation(attribution, layer % count if count else 0, count, row, target.site.kind)


def prediction_target(loaded: Any, *, ids: list[int] | None = None, text: str | None = None,
                      position: int | None = None, token_id: int | None = None, contrast: str | None = None,
                      contrast_id: int | None = None, second_choice: bool = False) -> Target:
    """The target of a prediction a view shows: ``ids`` as given (a decoder's prompt; a masked LM's ids with
    ``position`` the mask) or ``text`` (encoder-decoders: the first output token); ``token_id`` the shown
    token (default: the model's top token); the foil Y of "why X and not Y" as typed (``contrast``: one
    vocabulary token) or by id (``contrast_id``), or the model's best other token (``second_choice``)."""
    target = _prediction_target(loaded, ids, text, position, token_id)
    if second_choice:
        return second_choice_of(loaded, target)
    if contrast is not None and contrast.strip():
        contrast_id = vocabulary_token(loaded, contrast, "“instead of”")
    if contrast_id is None:
        return target
    return target.with_contrast(int(contrast_id), token_name(loaded, int(contrast_id)))


def second_choice_of(loaded: Any, target: Target) -> Target:
    """``target`` with the model's best other token at its site as the foil (the Explain panel's one click)."""
    foil = second_choice(loaded, target.site, target.id)
    return target.with_contrast(foil, token_name(loaded, foil))


def _prediction_target(loaded: Any, ids: list[int] | None, text: str | None, position: int | None,
                       token_id: int | None) -> Target:
    if ids is not None:
        site = site_from_ids(loaded, ids, position)
    elif text is not None:
        site = prediction_site(loaded, text, "attribution")
    else:
        raise WorkbenchError("nothing to explain: no ids and no text")
    if token_id is None:
        return resolve_target(loaded, site)
    return Target(site, int(token_id), token_name(loaded, int(token_id)))

