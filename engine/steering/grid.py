"""A layer × strength grid of steering: per cell, the concept score (mean logit gain, steered − unsteered, of
chosen tokens at the read position), KL(unsteered ‖ steered) in nats, the top token and, with ``generate`` > 0,
the greedy generation. A cell whose output is not finite is ``None`` with a note (the strength broke the model).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Generator

import torch

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.progress import NEVER_CANCELLED, Progress
from lm_workbench.engine.steering.apply import adding, generate, inputs, kl, read_logits


@dataclass
class GridCell:
    layer: int
    strength: float
    concept_score: float | None
    kl: float | None
    top_token: str | None
    generation: str | None = None


@dataclass
class SteeringGrid:
    layers: list[int]
    strengths: list[float]
    concept_tokens: list[str]
    cells: list[GridCell]
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def concept_ids(loaded: Any, words: list[str]) -> list[int]:
    """The first token id of each word (as it reads after a space, for BPE vocabularies)."""
    ids = []
    for word in words:
        found = loaded.tokenizer(" " + word.strip(), add_special_tokens=False)["input_ids"] or \
            loaded.tokenizer(word.strip(), add_special_tokens=False)["input_ids"]
        if not found:
            raise WorkbenchError(f"{word!r} has no token in {loaded.info.spec}'s vocabulary")
        ids.append(found[0])
    return ids


def steering_grid(loaded: Any, text: str, layers: list[int], strengths: list[float],
                  vector_at: Callable[[int], tuple[Any, torch.Tensor]], concept: list[str] | list[int], *,
                  generate_tokens: int = 0, cancel: Any = NEVER_CANCELLED) -> Generator[Progress, None, SteeringGrid]:
    """The grid; ``vector_at(layer)`` gives (HookSite, vector [d]) of a layer; ``concept`` words (their first token
    after a space) or token ids."""
    batch, position, _, window = inputs(loaded, text)
    ids = [int(c) for c in concept] if concept and isinstance(concept[0], int) else concept_ids(loaded, concept)
    clean = read_logits(loaded, batch, position)
    words = [loaded.tokenizer.decode([i]) for i in ids]
    grid = SteeringGrid(list(layers), [float(s) for s in strengths], words, [])
    grid.notes.extend(window)  # the window line when the text was longer than the model's window
    total = len(layers) * len(strengths)
    for layer in layers:
        site, vector = vector_at(layer)
        for strength in strengths:
            cancel.check()
            logits = read_logits(loaded, batch, position, adding(site, vector, strength))
            if not torch.isfinite(logits).all():
                grid.cells.append(GridCell(layer, float(strength), None, None, None))
                grid.notes.append(f"layer {layer}, strength {strength:g}: the output is NaN or infinite (stopped)")
            else:
                gain = float((logits[ids] - clean[ids]).mean()) if ids else None
                cell = GridCell(layer, float(strength), gain, kl(clean, logits),
                                loaded.tokenizer.decode([int(logits.argmax())]))
                if generate_tokens > 0 and loaded.family.value != "encoder":
                    cell.generation = generate(loaded, text, generate_tokens, adding(site, vector, strength))
                grid.cells.append(cell)
            yield Progress(len(grid.cells), total, f"layer {layer}, strength {strength:g}")
    if not ids:
        grid.notes.append("concept_score not defined: no concept tokens chosen")
    return grid
