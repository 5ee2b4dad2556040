"""Integrated gradients (Sundararajan, Taly and Yan 2017) over the input word embeddings.

The baseline is zero word embeddings (the model still adds its position and segment embeddings, unchanged);
the path is the straight line x(α) = α·e for α from 0 to 1, and token i's score is

    Σ_d e_d · ∫₀¹ ∂f(α·e)/∂e_d dα

with f the pre-softmax target logit. The integral is taken by the trapezoidal rule over ``steps`` equal
intervals (steps + 1 gradient evaluations, both ends included: they give f(x) and f(baseline) for free).
Completeness says the scores sum to f(x) − f(baseline); ``completeness_gap`` is how far they miss, so a user
sees how many steps are enough. With a foil Y, f is logit(X) − logit(Y), and ``baseline_logit`` and the gap
refer to that difference (``target_logit`` stays X's own logit). (A model that adds no position embeddings to
its inputs, such as Llama with its rotary ones, reads the zero baseline as an all-zero stream: its first RMSNorm then jumps from 0 to full size
within a tiny α, and the gap stays large at any sensible step count; the gap is there to show exactly that.)
Evaluations go through the model in batches, with progress after each.
"""

from __future__ import annotations

from typing import Generator

import torch

from lm_workbench.engine.attribution.grad_input import contrast_fields, embedding_gradient
from lm_workbench.engine.attribution.names import DEFAULT_STEPS, INTEGRATED_GRADIENTS
from lm_workbench.engine.attribution.result import Attribution
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.logit_target.target import Target, rows_per_pass, word_embeddings
from lm_workbench.engine.models.loading import LoadedModel
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, Progress, run_to_completion

MAX_STEPS = 4096


def trapezoid_weights(steps: int) -> torch.Tensor:
    """[steps + 1] weights of the trapezoidal rule on [0, 1] (they sum to 1)."""
    weights = torch.full((steps + 1,), 1.0 / steps, dtype=torch.float64)
    weights[0] = weights[-1] = 0.5 / steps
    return weights


def integrated_gradients_job(loaded: LoadedModel, target: Target, steps: int = DEFAULT_STEPS,
                               cancel: CancelToken = NEVER_CANCELLED) -> Generator[Progress, None, Attribution]:
    """Integrated gradients for ``target``, as a job: yields Progress per batch, returns the Attribution."""
    if not 1 <= steps <= MAX_STEPS:
        raise WorkbenchError(f"--steps must be between 1 and {MAX_STEPS}, not {steps}")
    embeddings = word_embeddings(loaded, target.site)  # [1, T, H]
    alphas = torch.linspace(0.0, 1.0, steps + 1, dtype=torch.float64)
    weights = trapezoid_weights(steps)
    mean_grad = torch.zeros(embeddings.shape[1:], dtype=torch.float64, device=embeddings.device)
    ends: dict[int, float] = {}
    last_pair = None
    chunk = rows_per_pass(loaded, target.site)
    for start in range(0, steps + 1, chunk):
        cancel.check()
        part = alphas[start:start + chunk]
        batch = part.to(embeddings.device, embeddings.dtype)[:, None, None] * embeddings
        metrics, grad, pairs = embedding_gradient(loaded, target, batch)
        mean_grad += torch.einsum("b,bth->th", weights[start:start + chunk].to(grad.device), grad.double())
        for k, metric in zip(range(start, start + len(part)), metrics.tolist()):
            if k in (0, steps):
                ends[k] = float(metric)
            if k == steps:
                last_pair = pairs[k - start]
        yield Progress(min(start + chunk, steps + 1), steps + 1, "integrated gradients: path points")
    scores = (embeddings[0].double() * mean_grad).sum(-1).cpu()
    metric, baseline_metric = ends[steps], ends[0]
    gap = float(scores.sum()) - (metric - baseline_metric)
    return Attribution(INTEGRATED_GRADIENTS, target.site.tokens, [float(s) for s in scores], target.token, target.id,
                       target.site.position, float(last_pair[0]), baseline_logit=baseline_metric, completeness_gap=gap,
                       steps=steps, **contrast_fields(target, last_pair))


def integrated_gradients(loaded: LoadedModel, target: Target, steps: int = DEFAULT_STEPS) -> Attribution:
    """``integrated_gradients_job`` run to its end."""
    return run_to_completion(integrated_gradients_job(loaded, target, steps))
