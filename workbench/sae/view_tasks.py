"""The Features view's jobs (worker thread; each ``fn(cancel)``): the features on the text, one feature's
contexts and logit effect over a corpus, steering with a feature or with contrastive pairs beside the unsteered
model, and the layer grid of either. SAEs are loaded once per (folder, model) and kept."""

from __future__ import annotations

from typing import Any, Callable, Generator

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


def contrastive_at(loaded: Any, template: str, positives: list[str], negatives: list[str]
                   ) -> Callable[[int], tuple[Any, Any]]:
    """``vector_at`` for ``steering_grid``: the pairs' contrastive direction computed again at each block's own
    site (``template`` with ``{layer}``, e.g. ``blocks.{layer}.hook_resid_post``)."""
    from lm_workbench.engine.anatomy.points import resolve
    from lm_workbench.engine.steering.vectors import contrastive_direction

    def vector_at(layer: int) -> tuple[Any, Any]:
        at = resolve(loaded, template.format(layer=layer))
        return at, contrastive_direction(loaded, at, positives, negatives)

    return vector_at


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


def steering_sites(loaded: Any) -> tuple[list[str], str]:
    """(the per-block hook points a vector can be added at, in forward order: every ``…blocks.{i}.…`` point but
    the attention pattern; the default, the middle block's ``hook_resid_post``); a one-line error for a model
    without transformer blocks (ELMo). No forward pass: quick enough for the Qt thread."""
    from lm_workbench.engine.anatomy.points import hook_points
    from lm_workbench.sae.sites import default_site

    sites = [p for p in hook_points(loaded) if "blocks." in p and not p.endswith("hook_pattern")]
    default = default_site(loaded)
    return sites, default if default in sites else (sites[0] if sites else "")


def view_pairs(given: tuple[str, str]) -> tuple[list[str], list[str], str]:
    """(positives, negatives, what they are: "N pairs, FILE-NAME" or "N pairs, typed pairs") of
    ``FeaturesState.pairs_given()``: a file read by the engine's ``read_pairs`` (the CLI's ``--pairs``), typed
    lines by its ``parse_pairs``; one-line errors from either."""
    from pathlib import Path

    from lm_workbench.engine.steering.vectors import parse_pairs, read_pairs

    kind, value = given
    pos, neg = read_pairs(value) if kind == "file" else parse_pairs(value, "typed pairs")
    count = f"{len(pos)} pair{'s' if len(pos) != 1 else ''}" if len(pos) == len(neg) else \
        f"{len(pos)} positive and {len(neg)} negative prompts"
    return pos, neg, f"{count}, {Path(value).name if kind == 'file' else 'typed pairs'}"


def pairs_steer_job(loaded: Any, given: tuple[str, str], site_name: str, text: str, strength: float,
                    cancel: CancelToken) -> tuple[Any, str]:
    """(``SteerResult``, the direction in words): steering with the pairs' contrastive direction at ``site_name``
    (``lm_workbench.engine.steering.vectors.contrastive_direction``, as ``steer --pairs``), beside unsteered,
    with 12 generated tokens where the family generates. A model that makes no predictions is refused first."""
    from lm_workbench.engine.models.families import Family
    from lm_workbench.engine.steering.apply import inputs, steer
    from lm_workbench.engine.steering.vectors import contrastive_direction
    from lm_workbench.sae.sites import resolve_site

    site = resolve_site(loaded, site_name)
    inputs(loaded, text)  # a model without an LM or MLM head, an encoder's text without its mask: said now
    positives, negatives, what = view_pairs(given)
    cancel.check()
    direction = contrastive_direction(loaded, site, positives, negatives)
    cancel.check()
    generate = 0 if loaded.family is Family.ENCODER else 12
    result = steer(loaded, text, site, direction, strength, k=5, generate_tokens=generate)
    return result, f"contrastive pairs ({what})"


def promoted_ids(loaded: Any, text: str, site: Any, vector: Any, strength: float, k: int = 3) -> list[int]:
    """The ``k`` token ids whose logit at the read position ``vector`` × ``strength`` at ``site`` raises most."""
    from lm_workbench.engine.steering.apply import adding, inputs, read_logits

    batch, position, _, _ = inputs(loaded, text)
    gain = read_logits(loaded, batch, position, adding(site, vector, strength)) - read_logits(loaded, batch, position)
    return [int(i) for i in gain.topk(k).indices]


def pairs_grid_job(loaded: Any, given: tuple[str, str], site_name: str, text: str, strength: float, concept: str,
                   cancel: CancelToken) -> Generator[Progress, None, tuple[Any, str]]:
    """(``SteeringGrid``, the direction in words): as ``steer --pairs --grid``: the pairs averaged again at the
    same site of every block (``contrastive_at``), strengths ``GRID_STRENGTHS`` ×
    ``strength``; the concept tokens are ``concept``'s comma-separated words or, when it is empty, the three
    tokens the direction at ``site_name`` × ``strength`` promotes most (said in the grid's notes)."""
    from lm_workbench.engine.steering.apply import inputs
    from lm_workbench.engine.steering.grid import steering_grid
    from lm_workbench.engine.steering.vectors import contrastive_direction
    from lm_workbench.sae.sites import resolve_site

    site = resolve_site(loaded, site_name)
    layers, template = grid_sites(loaded, site_name)
    inputs(loaded, text)
    positives, negatives, what = view_pairs(given)
    words: list[Any] = [w for w in concept.split(",") if w.strip()]
    notes = []
    if not words:
        words = promoted_ids(loaded, text, site, contrastive_direction(loaded, site, positives, negatives),
                             strength or 1.0)
        notes.append(f"(No concept words given: the concept tokens are the three the direction at {site_name} × "
                     f"{strength or 1.0:g} promotes most.)")
    grid = yield from steering_grid(loaded, text, layers, [m * strength for m in GRID_STRENGTHS],
                                    contrastive_at(loaded, template, positives, negatives), words, cancel=cancel)
    grid.notes[:0] = notes
    return grid, f"contrastive pairs ({what})"


def lecture_strip_job(loaded: Any, recipe: Any, text: str, cancel: CancelToken) -> Generator[Progress, None, Any]:
    """A lecture step's strip: (the text's features, the site, notes, the SAE folder), training the step's SAE
    recipe first where it is not kept yet (``lm_workbench.sae.preset_sae``), recorded as an ``sae`` run."""
    from lm_workbench.paths import runs_db_path
    from lm_workbench.sae.preset_sae import ensure_sae

    folder = yield from ensure_sae(loaded, recipe, cancel=cancel, store_path=runs_db_path())
    return (*text_features_job(loaded, folder, text, cancel), folder)
