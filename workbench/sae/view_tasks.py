"""The Features view's jobs (worker thread; each ``fn(cancel)``): the features on the text, one feature's
contexts and logit effect over a corpus, steering with a feature beside the unsteered model. SAEs are loaded
once per (folder, model) and kept."""

from __future__ import annotations

from typing import Any, Generator

from lm_workbench.engine.progress import CancelToken, Progress

_CACHE: dict[tuple[str, int], tuple[Any, Any, list[str]]] = {}


def checked_sae(loaded: Any, folder: str) -> tuple[Any, Any, list[str]]:
    """(SaeFile, HookSite, notes) for ``folder`` on ``loaded`` (``lm_workbench.sae.reading.load_checked_sae``)."""
    from lm_workbench.sae.reading import load_checked_sae

    key = (str(folder), id(loaded))
    if key not in _CACHE:
        while len(_CACHE) >= 4:  # model A's and model B's SAEs, and a few before them
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = load_checked_sae(loaded, folder)
    return _CACHE[key]


def text_features_job(loaded: Any, folder: str, text: str, cancel: CancelToken) -> Any:
    """The engine's ``TextFeatures`` of ``text`` (and the SAE's notes)."""
    from lm_workbench.engine.sae.features import features_on_text

    file, site, notes = checked_sae(loaded, folder)
    cancel.check()
    return features_on_text(loaded, site, file.sae, text), file.hook_name, notes


def feature_job(loaded: Any, folder: str, corpus: str, feature: int, cancel: CancelToken,
                max_tokens: int = 20000) -> Generator[Progress, None, dict[str, Any]]:
    """One feature's ``FeatureStats`` (top contexts, histogram, density) and logit effect."""
    from lm_workbench.engine.errors import WorkbenchError
    from lm_workbench.engine.sae.activations import read_corpus
    from lm_workbench.engine.sae.features import feature_stats, logit_effect, top_contexts

    file, site, notes = checked_sae(loaded, folder)
    if not 0 <= feature < file.sae.d_sae:
        raise WorkbenchError(f"feature {feature} is out of range: the SAE has 0..{file.sae.d_sae - 1}")
    lines = read_corpus(corpus)
    found = yield from top_contexts(loaded, site, file.sae, lines, n=8, max_tokens=max_tokens, cancel=cancel)
    effect, more = logit_effect(loaded, file.sae, feature)
    return {"stats": feature_stats(loaded, site, file.sae, found, feature), "effect": effect,
            "notes": notes + more, "tokens": found.tokens, "corpus": found}


def search_job(loaded: Any, folder: str, token: str, corpus: Any, cancel: CancelToken) -> dict[str, Any]:
    """Features by a token: those whose logit effect promotes it most (``promoting``: [(feature, effect)]) and,
    when a corpus was read (``corpus``: the last feature view's ``CorpusFeatures``), those whose strongest context
    peaks on it (``firing``)."""
    from lm_workbench.engine.sae.features import firing_on, promoting

    file, _site, _notes = checked_sae(loaded, folder)
    cancel.check()
    return {"token": token, "promoting": promoting(loaded, file.sae, token),
            "firing": None if corpus is None else firing_on(loaded, corpus, token)}


def steer_job(loaded: Any, folder: str, feature: int, text: str, strength: float, cancel: CancelToken) -> Any:
    """Steered beside unsteered predictions (and 12 generated tokens where the family generates)."""
    from lm_workbench.engine.models.families import Family
    from lm_workbench.engine.steering.apply import steer
    from lm_workbench.engine.steering.vectors import feature_direction

    file, site, _notes = checked_sae(loaded, folder)
    cancel.check()
    generate = 0 if loaded.family is Family.ENCODER else 12
    return steer(loaded, text, site, feature_direction(file.sae, feature), strength, k=5, generate_tokens=generate)


GRID_STRENGTHS = (-1.0, 0.0, 0.5, 1.0, 2.0, 4.0)  # multiples of the form's strength


def grid_sites(loaded: Any, hook_name: str) -> tuple[list[int], str]:
    """(every block index, the site's name with ``{layer}`` for its block) for a per-block site, e.g.
    ``blocks.{layer}.hook_resid_post``; a one-line error for a site outside the blocks."""
    import re

    from lm_workbench.engine.anatomy.points import blocks_of
    from lm_workbench.engine.errors import WorkbenchError

    match = re.match(r"^((?:encoder|decoder)\.)?blocks\.(\d+)\.(.+)$", hook_name)
    if not match:
        raise WorkbenchError(f"a layer grid needs a per-block site, not {hook_name}")
    stack = (match.group(1) or "").rstrip(".") or None
    return list(range(len(blocks_of(loaded, stack)))), f"{match.group(1) or ''}blocks.{{layer}}.{match.group(3)}"


def grid_job(loaded: Any, folder: str, feature: int, text: str, strength: float, cancel: CancelToken
             ) -> Generator[Progress, None, Any]:
    """The layer × strength grid of steering with the feature's direction at the same site of every block, the
    concept tokens its logit effect promotes most (three); strengths ``GRID_STRENGTHS`` × ``strength``."""
    from lm_workbench.engine.anatomy.points import resolve
    from lm_workbench.engine.sae.features import logit_effect
    from lm_workbench.engine.steering.grid import steering_grid
    from lm_workbench.engine.steering.vectors import feature_direction

    file, _site, _notes = checked_sae(loaded, folder)
    layers, template = grid_sites(loaded, file.hook_name)
    direction = feature_direction(file.sae, feature)
    effect, _ = logit_effect(loaded, file.sae, feature, k=3)
    concept = [e["id"] for e in effect["promoted"]] if effect else []
    strengths = [m * strength for m in GRID_STRENGTHS]
    return (yield from steering_grid(loaded, text, layers, strengths,
                                     lambda layer: (resolve(loaded, template.format(layer=layer)), direction),
                                     concept, cancel=cancel))


def lecture_strip_job(loaded: Any, recipe: Any, text: str, cancel: CancelToken) -> Generator[Progress, None, Any]:
    """A lecture step's strip: (the text's features, the site, notes, the SAE folder), training the step's SAE
    recipe first where it is not kept yet (``lm_workbench.sae.preset_sae``), recorded as an ``sae`` run."""
    from lm_workbench.paths import runs_db_path
    from lm_workbench.sae.preset_sae import ensure_sae

    folder = yield from ensure_sae(loaded, recipe, cancel=cancel, store_path=runs_db_path())
    return (*text_features_job(loaded, folder, text, cancel), folder)
