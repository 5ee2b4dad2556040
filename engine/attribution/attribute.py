"""One entry point for every attribution method, by name (what the CLI and the views call)."""

from __future__ import annotations

from dataclasses import replace
from typing import Generator

from lm_workbench.engine.attribution.grad_input import grad_input
from lm_workbench.engine.attribution.integrated_gradients import integrated_gradients_job
from lm_workbench.engine.attribution.names import (
    DEFAULT_STEPS, FLOW, GRAD_INPUT, INTEGRATED_GRADIENTS, METHODS, ROLLOUT, TARGET_FREE,
)
from lm_workbench.engine.attribution.result import Attribution
from lm_workbench.engine.attribution.rollout import flow_attribution_job, rollout_attribution
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.logit_target.target import Target, prediction_site, resolve_target
from lm_workbench.engine.models.loading import LoadedModel
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, Progress, run_to_completion


def attribute_job(loaded: LoadedModel, text: str, method: str = GRAD_INPUT, target: str | None = None,
                    steps: int = DEFAULT_STEPS, cancel: CancelToken = NEVER_CANCELLED, output_position: int = 0,
                    contrast: str | None = None) -> Generator[Progress, None, Attribution]:
    """Attribute the prediction ``text`` leads to (a decoder's next token, an MLM's masked token, an
    encoder-decoder's output token at ``output_position``) to its input tokens with ``method`` (one of
    ``names.METHODS``); ``target`` names one vocabulary token (default: the model's top token); ``steps`` is
    integrated gradients' number of intervals; ``contrast`` names a foil Y (one vocabulary token): the scores
    are then of logit(X) − logit(Y). A job: yields Progress."""
    check_method(method, contrast)
    site = prediction_site(loaded, text, "attribution", output_position)
    chosen = resolve_target(loaded, site, target, contrast)
    return (yield from attribute_target_job(loaded, chosen, method, steps, cancel))


def check_method(method: str, contrast: object = None) -> None:
    """A one-line error for an unknown method, or a foil given to a method that does not read the target."""
    if method not in METHODS:
        raise WorkbenchError(f"the attribution method is one of {', '.join(METHODS)}, not {method!r}")
    if contrast is not None and method in TARGET_FREE:
        raise WorkbenchError(f"{method} does not depend on the target, so it takes no contrast: use grad-input or "
                             "integrated-gradients for why X and not Y")


def attribute_target_job(loaded: LoadedModel, chosen: Target, method: str = GRAD_INPUT,
                           steps: int = DEFAULT_STEPS, cancel: CancelToken = NEVER_CANCELLED
                           ) -> Generator[Progress, None, Attribution]:
    """Attribute a target already found (``targets``, ``classifier``, ``prompt``) with ``method``; a job."""
    check_method(method, chosen.contrast_id)
    if method == GRAD_INPUT:
        result = grad_input(loaded, chosen)
    elif method == INTEGRATED_GRADIENTS:
        result = yield from integrated_gradients_job(loaded, chosen, steps, cancel)
    elif method == ROLLOUT:
        result = rollout_attribution(loaded, chosen)
    else:
        assert method == FLOW
        result = yield from flow_attribution_job(loaded, chosen, cancel)
    notes = chosen.site.notes  # which tokens of a text longer than the window were read
    return replace(result, notes=tuple(notes)) if notes else result


def attribute(loaded: LoadedModel, text: str, method: str = GRAD_INPUT, target: str | None = None,
              steps: int = DEFAULT_STEPS, output_position: int = 0, contrast: str | None = None) -> Attribution:
    """``attribute_job`` run to its end."""
    return run_to_completion(attribute_job(loaded, text, method, target, steps, output_position=output_position,
                                           contrast=contrast))
