"""Attribution patching (Nanda 2023; Syed, Rager and Conmy 2023): the gradient approximation of activation
patching, for every site (``resid``, ``attn``, ``mlp``) of every layer at once.

Restoring one activation a at layer l, position t from the clean run into the corrupted run changes the metric
by about its first-order term:

    patched − corrupt ≈ (a_clean − a_corrupt) · ∂metric/∂a, the gradient taken at the corrupted run,

so one forward pass of the clean text (to record its activations), one forward pass of the corrupted text and
one backward pass of its metric give every cell of every site, where the exact sweep (``tracing``) runs layers
× tokens patched passes per site. Each cell is divided by clean − corrupt, as the exact sweep's recovered
fraction is, so the two matrices compare cell by cell. The sites are the exact sweep's (``sites``), hooked the
same way; the metric is the same (logit(answer) − logit(wrong) at the predicted position, in float64). With
ROME's noise the corrupted metric is the mean over the draws, and a cell sums each draw's term of that mean.

The approximation is exact where the metric is linear in the activation (the last block's output at the
predicted position, through a norm whose scale barely moves) and can be far off where attention or a norm bends
the path (large activation differences, early layers): ``comparison`` measures how far on a given pair.

Encoder-decoders (BART, T5) get their sites too (``encoder_decoder``): the decoder's ``resid``, ``attn``,
``cross-attn`` and ``mlp`` (a column per decoder token) and the encoder's ``enc-resid``, ``enc-attn`` and ``enc-mlp``
(a column per encoder token), the metric at the decoder's ``output_position``, both runs decoding the clean
run's decoder prefix; the gradient flows back from the decoder through the cross-attention into the encoder.
"""

from __future__ import annotations

from typing import Generator

import torch

from lm_workbench.engine.anatomy.hooks import holding_outputs
from lm_workbench.engine.logit_target.target import position_logits, prediction_site, token_name, vocabulary_token, word_embeddings
from lm_workbench.engine.models.loading import LoadedModel
from lm_workbench.engine.patching.names import sites_for
from lm_workbench.engine.patching.noise import DEFAULT_SAMPLES, DEFAULT_SCALE
from lm_workbench.engine.patching.sites import check_site, site_modules
from lm_workbench.engine.patching.tracing import (
    SAME_METRIC_NOTE, SAME_METRIC_TOLERANCE, WEAK_CONTRAST, Corruption, Patching, _corrupted, _metric, check_family,
    column_tokens, weak_contrast_note,
)
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, Progress, run_to_completion

WHAT = "attribution patching"
METHOD = "attribution"  # the CLI's ``method`` for this approximation


def attribution_patching_job(loaded: LoadedModel, clean: str, corrupt: str | None, answer: str,
                             wrong: str | None = None, sites: tuple[str, ...] | None = None,
                             cancel: CancelToken = NEVER_CANCELLED, *, subject: str | None = None,
                             noise_scale: float = DEFAULT_SCALE, samples: int = DEFAULT_SAMPLES, seed: int = 0,
                             output_position: int = 0) -> Generator[Progress, None, dict[str, Patching]]:
    """{site: the approximate ``Patching`` of that site} for every one of ``sites`` (default: every site the
    model has), from one clean forward pass, one corrupted forward pass and one backward pass; a job that yields
    Progress. Inputs as ``patching_job``."""
    check_family(loaded, output_position, WHAT)
    sites = tuple(sites_for(loaded.family.value) if sites is None else sites)
    for site in sites:
        check_site(loaded, site)
    modules = {site: site_modules(loaded, site) for site in sites}
    flat = [m for site in sites for m in modules[site]]
    clean_site = prediction_site(loaded, clean, WHAT, output_position)
    corrupt_site, corrupt_embeddings, noise = _corrupted(loaded, clean_site,
                                                        Corruption(corrupt, subject, noise_scale, samples, seed))
    answer_id = vocabulary_token(loaded, answer, "--answer")
    wrong_id = vocabulary_token(loaded, wrong, "--wrong") if wrong is not None else None
    total = 2
    yield Progress(0, total, f"{WHAT}: the clean run")
    cancel.check()
    with torch.no_grad(), holding_outputs(flat) as kept:
        clean_logits = position_logits(loaded, clean_site, word_embeddings(loaded, clean_site))
    clean_outputs = [k.detach()[0] for k in kept]  # [modules] of [T, H], in ``flat``'s order
    clean_metric = float(_metric(clean_logits, answer_id, wrong_id)[0])
    yield Progress(1, total, f"{WHAT}: the corrupted run and one backward pass")

    cancel.check()
    with torch.enable_grad(), holding_outputs(flat) as corrupt_outputs:  # no yield in here: grad mode is per thread
        embeddings = corrupt_embeddings.detach().clone().requires_grad_(True)
        logits = position_logits(loaded, corrupt_site, embeddings)
        metrics = _metric(logits, answer_id, wrong_id)  # [S]: one per noise draw (a second text: S = 1)
        corrupt_metric_t = metrics.mean()
        cancel.check()
        grads = torch.autograd.grad(corrupt_metric_t, corrupt_outputs, allow_unused=True)
    corrupt_metric = float(corrupt_metric_t.detach())
    yield Progress(2, total, f"{WHAT}: done")

    span = clean_metric - corrupt_metric
    scale = max(1.0, abs(clean_metric), abs(corrupt_metric))
    same = abs(span) <= SAME_METRIC_TOLERANCE * scale
    weak = not same and abs(span) < WEAK_CONTRAST
    note = SAME_METRIC_NOTE if same else weak_contrast_note(clean_metric, corrupt_metric) if weak else None
    top = [token_name(loaded, int(torch.argmax(row.float()))) for row in
           (clean_logits[0], logits.detach().double().mean(0))]
    results: dict[str, Patching] = {}
    index = 0
    for site in sites:
        rows = []
        for _ in modules[site]:
            tokens = clean_outputs[index].shape[0]  # this site's columns: text, encoder or decoder tokens
            if same:
                rows.append([0.0] * tokens)
            else:
                grad, corrupt_out = grads[index], corrupt_outputs[index].detach()
                if grad is None:  # the site does not reach the metric (e.g. nothing after it is read)
                    grad = torch.zeros_like(corrupt_out)
                difference = clean_outputs[index].double().unsqueeze(0) - corrupt_out.double()  # [S, T, H]
                cells = (difference * grad.double()).sum(dim=(0, 2)) / span  # [T]
                rows.append((cells + 0.0).tolist())
            index += 1
        results[site] = Patching(
            site=site, layers=list(range(len(modules[site]))), position=clean_site.position,
            answer=token_name(loaded, answer_id), answer_id=answer_id,
            wrong=token_name(loaded, wrong_id) if wrong_id is not None else None, wrong_id=wrong_id,
            clean_metric=clean_metric, corrupt_metric=corrupt_metric, clean_prediction=top[0],
            corrupt_prediction=top[1], effect=rows, note=note, noise=noise, weak_contrast=weak,
            **column_tokens(loaded, site, clean_site, corrupt_site))
    return results


def attribution_patch(loaded: LoadedModel, clean: str, corrupt: str, answer: str, wrong: str | None = None,
                      sites: tuple[str, ...] | None = None, output_position: int = 0) -> dict[str, Patching]:
    """``attribution_patching_job`` run to its end (``sites`` None: every site the model has)."""
    return run_to_completion(attribution_patching_job(loaded, clean, corrupt, answer, wrong, sites,
                                                      output_position=output_position))
