"""An SAE folder or a steering vector made ready for a loaded model, with the checks the issue names: the SAE's
site must be one of the model's hook points and its width the site's width (one line naming both), the model's
fingerprint the one the SAE was trained on (when the file carries one)."""

from __future__ import annotations

from typing import Any

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.sae.sites import model_fingerprint, resolve_site, site_width


def load_checked_sae(loaded: Any, folder: str) -> tuple[Any, Any, list[str]]:
    """(``SaeFile``, its ``HookSite`` in ``loaded``, notes); one-line errors for a site the model lacks, a width
    that differs, or another model's fingerprint."""
    from lm_workbench.engine.sae.files import check_fits, load_sae

    file = load_sae(folder)
    try:
        site = resolve_site(loaded, file.hook_name)
    except WorkbenchError as exc:
        raise WorkbenchError(f"the SAE {file.folder} reads {file.hook_name}, which {loaded.info.spec} does not have "
                             f"({exc})") from None
    notes = check_fits(file, loaded, site_width(loaded, site), model_fingerprint(loaded))
    return file, site, notes


def parse_feature(value: str) -> tuple[str, int]:
    """``SAE_DIR:IDX`` -> (folder, index); a one-line error otherwise."""
    folder, sep, index = value.rpartition(":")
    if not sep or not folder or not index.strip().isdigit():
        raise WorkbenchError(f"--feature takes SAE_DIR:IDX (a folder and a feature number), not {value!r}")
    return folder, int(index)


def steering_vector(loaded: Any, site_name: str, *, vector: str | None = None, feature: str | None = None,
                    pairs: str | None = None) -> tuple[Any, Any, str, list[str]]:
    """(HookSite, vector [d], how it was made, notes) for exactly one of ``vector`` (a file), ``feature``
    (``SAE_DIR:IDX``) or ``pairs`` (a pairs file)."""
    from lm_workbench.engine.sae.files import load_vector
    from lm_workbench.engine.steering.vectors import contrastive_direction, feature_direction, read_pairs

    given = [name for name, value in (("--vector", vector), ("--feature", feature), ("--pairs", pairs)) if value]
    if len(given) != 1:
        raise WorkbenchError("give exactly one of --vector FILE, --feature SAE_DIR:IDX, --pairs FILE"
                             + (f" (got {', '.join(given)})" if given else ""))
    site = resolve_site(loaded, site_name)
    notes: list[str] = []
    if feature:
        folder, index = parse_feature(feature)
        file, _sae_site, notes = load_checked_sae(loaded, folder)
        if file.hook_name != site_name:
            raise WorkbenchError(f"the SAE {folder} reads {file.hook_name}, not --site {site_name}")
        return site, feature_direction(file.sae, index), f"feature {index} of {folder} (unit decoder direction)", notes
    if pairs:
        positives, negatives = read_pairs(pairs)
        direction = contrastive_direction(loaded, site, positives, negatives)
        return site, direction, f"contrastive pairs ({len(positives)} positive, {len(negatives)} negative)", notes
    tensor, meta = load_vector(vector)
    if meta.get("site") and meta["site"] != site_name:
        raise WorkbenchError(f"the vector {vector} was made at {meta['site']}, not --site {site_name}")
    fingerprint = model_fingerprint(loaded)
    if meta.get("model_fingerprint") and fingerprint and meta["model_fingerprint"] != fingerprint:
        raise WorkbenchError(f"the vector {vector} was made on another model ({meta.get('model_name')}) than "
                             f"{loaded.info.spec}")
    width = site_width(loaded, site)
    if tensor.shape[0] != width:
        raise WorkbenchError(f"the vector {vector} is {tensor.shape[0]} wide, {loaded.info.spec}'s {site_name} is "
                             f"{width}")
    return site, tensor, meta.get("how") or f"vector {vector}", notes
