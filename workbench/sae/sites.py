"""Where an SAE reads in a loaded model: the default site, a hook point resolved with a one-line error that
names the model's points, the site's width, and the model's provenance fingerprint."""

from __future__ import annotations

from typing import Any

from lm_workbench.engine.errors import WorkbenchError


def default_site(loaded: Any) -> str:
    """The middle block's ``hook_resid_post`` (an encoder-decoder's: its decoder's)."""
    from lm_workbench.engine.anatomy.points import blocks_of
    from lm_workbench.engine.models.families import Family

    stack = "decoder" if loaded.family is Family.ENCODER_DECODER else None
    prefix = "decoder." if stack else ""
    return f"{prefix}blocks.{len(blocks_of(loaded, stack)) // 2}.hook_resid_post"


def resolve_site(loaded: Any, name: str) -> Any:
    """The ``HookSite`` of ``name``, or a one-line error naming the model's points of that kind."""
    from lm_workbench.engine.anatomy.points import hook_points, resolve

    try:
        return resolve(loaded, name)
    except WorkbenchError as exc:
        known = [p for p in hook_points(loaded) if "hook_pattern" not in p][:6]
        raise WorkbenchError(f"{exc} (sites of {loaded.info.spec}: {', '.join(known)}, ...)") from None


def model_fingerprint(loaded: Any) -> str | None:
    """The provenance fingerprint of ``loaded``'s folder (its config and safetensors headers), or None."""
    from lm_workbench.runs.provenance import fingerprint_model_folder

    try:
        return fingerprint_model_folder(loaded.info.folder)
    except (FileNotFoundError, OSError, TypeError):
        return None


def site_width(loaded: Any, site: Any) -> int:
    """The width of ``site``'s activations, from one short forward."""
    from lm_workbench.engine.sae.activations import site_activations

    acts, _, _ = site_activations(loaded, site, ["The width of this site."])
    return int(acts.shape[-1])
