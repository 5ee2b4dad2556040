"""``attribute`` with the attention row the views' Explain strip shows under the tokens.

The row is ``lm_workbench.engine.attribution.explain.attention_row``: the raw attention of one layer at the predicted
position, averaged over heads (for an encoder-decoder the cross-attention of that decoder layer at the
output position), read on the same site the attribution is.
"""

from __future__ import annotations

from typing import Any, Generator

from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken


def attribute_with_attention_job(loaded: Any, text: str, method: str, target: str | None, steps: int,
                                   output_position: int, layer: int, cancel: CancelToken = NEVER_CANCELLED,
                                   contrast: str | None = None) -> Generator[Any, None, tuple[Any, dict[str, Any]]]:
    """``(Attribution, {"layer": L, "weights": [...] | None})``: ``attribute_job``'s attribution and the
    attention row of ``layer`` (negative: from the top) at the predicted position. A job."""
    from lm_workbench.engine.attribution.attribute import attribute_target_job, check_method
    from lm_workbench.engine.attribution.explain import attention_row
    from lm_workbench.engine.logit_target.target import prediction_site, resolve_target

    check_method(method, contrast)
    site = prediction_site(loaded, text, "attribution", output_position)
    chosen = resolve_target(loaded, site, target, contrast)
    attribution = yield from attribute_target_job(loaded, chosen, method, steps, cancel)
    cancel.check()
    weights, count = attention_row(loaded, site, layer)
    return attribution, {"layer": layer % count if count else layer, "weights": weights}
