"""``steer --grid``: the layer × strength grid of steering (``lm_workbench.engine.steering.grid``) for the command
line. The direction comes from ``--vector``, ``--feature`` or ``--pairs`` at ``--site``; the grid puts it at the
same site of every chosen block: a file's vector or a feature's unit decoder direction unchanged, contrastive pairs
computed again at each block's site."""

from __future__ import annotations

from typing import Any, Generator

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.progress import NEVER_CANCELLED, Progress


def grid_rows(grid: Any) -> list[dict[str, Any]]:
    """``[{layer, strength, concept_score, kl, top_token, text}]``: one row a cell, ``text`` the generation
    (``None`` without ``--generate`` and for encoders)."""
    return [{"layer": c.layer, "strength": c.strength, "concept_score": c.concept_score, "kl": c.kl,
             "top_token": c.top_token, "text": c.generation} for c in grid.cells]


def command_grid(loaded: Any, request: Any, cancel: Any = NEVER_CANCELLED) -> Generator[Progress, None, dict]:
    """``{grid: [...], layers, strengths, concept_tokens, site, vector, notes}`` for a ``SteerRequest`` with
    ``grid``; layers default to every block, strengths to ``GRID_STRENGTHS`` × ``strength``, the concept tokens
    to ``--concept`` or (``--feature``) the three tokens the feature's logit effect promotes most."""
    from lm_workbench.engine.anatomy.points import resolve
    from lm_workbench.engine.sae.features import logit_effect
    from lm_workbench.engine.steering.grid import steering_grid
    from lm_workbench.engine.steering.vectors import read_pairs
    from lm_workbench.sae.reading import load_checked_sae, parse_feature, steering_vector
    from lm_workbench.sae.view_tasks import GRID_STRENGTHS, contrastive_at, grid_sites

    site, vector, how, notes = steering_vector(loaded, request.site, vector=request.vector, feature=request.feature,
                                               pairs=request.pairs)
    blocks, template = grid_sites(loaded, request.site)
    layers = list(request.grid_layers) if request.grid_layers else blocks
    bad = [layer for layer in layers if layer not in blocks and layer + len(blocks) not in blocks]
    if bad:
        raise WorkbenchError(f"--grid-layers {bad[0]}: {loaded.info.spec} has blocks 0-{len(blocks) - 1}")
    layers = [layer % len(blocks) for layer in layers]
    strengths = list(request.grid_strengths) if request.grid_strengths else \
        [m * request.strength for m in GRID_STRENGTHS]
    concept: list[Any] = [w for w in (request.concept or "").split(",") if w.strip()]
    if not concept and request.feature:
        folder, index = parse_feature(request.feature)
        file, _site, _notes = load_checked_sae(loaded, folder)
        effect, _ = logit_effect(loaded, file.sae, index, k=3)
        concept = [e["id"] for e in effect["promoted"]] if effect else []
    if request.pairs:
        vector_at = contrastive_at(loaded, template, *read_pairs(request.pairs))
    else:
        def vector_at(layer: int) -> tuple[Any, Any]:
            return resolve(loaded, template.format(layer=layer)), vector
    grid = yield from steering_grid(loaded, request.text, layers, strengths, vector_at, concept,
                                    generate_tokens=request.generate, cancel=cancel)
    if request.generate > 0 and loaded.family.value == "encoder":
        notes.append("text is null: an encoder does not generate")
    return {"grid": grid_rows(grid), "layers": grid.layers, "strengths": grid.strengths,
            "concept_tokens": grid.concept_tokens, "site": template, "vector": how, "notes": notes + grid.notes}
