"""Few-shot prompts: choosing k demonstrations, ordering them, and writing them before the query.

Selection: ``"random"`` (k examples drawn with a seed), ``"balanced"`` (as equal a number per label as k
allows, labels taking the extra ones in the verbalizer's order, each label's examples drawn with the seed),
or ``"similar"`` (the k pool examples whose sentence vectors are closest by cosine to the query's; the
vectors come from the Embeddings tab's sentence embeddings, ``lm_workbench.engine.embeddings.sentence_embeddings``).
Order: ``"as-chosen"``, ``"shuffled"`` (seeded) or ``"by-label"``; for ``"similar"`` as-chosen puts the most
similar example last, next to the query. A demonstration is the template filled with its label's first
answer word; demonstrations are joined by a separator and precede the query. No torch here.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from lm_workbench.engine.data.labels import label_key
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.prompting.names import ORDERS, SELECTIONS
from lm_workbench.engine.prompting.template import Template
from lm_workbench.engine.prompting.verbalizer import Verbalizer

SEPARATOR = "\n\n"


@dataclass(frozen=True)
class Demonstration:
    """One labelled example shown to the model before the query."""

    x: str
    label: str
    x2: str | None = None


def check_choice(k: int, selection: str, order: str) -> None:
    if k < 0:
        raise WorkbenchError(f"k (the number of demonstrations) must be 0 or more, not {k}")
    if selection not in SELECTIONS:
        raise WorkbenchError(f"selection must be one of {', '.join(SELECTIONS)}, not {selection!r}")
    if order not in ORDERS:
        raise WorkbenchError(f"order must be one of {', '.join(ORDERS)}, not {order!r}")


def _candidates(pool: Sequence[Demonstration], exclude: Sequence[int]) -> list[int]:
    excluded = set(exclude)
    return [i for i in range(len(pool)) if i not in excluded]


def choose_demonstrations(pool: Sequence[Demonstration], k: int, *, selection: str = "random", seed: int = 0,
                          labels: Sequence[str] | None = None, order: str = "as-chosen",
                          exclude: Sequence[int] = (), similarities: Sequence[float] | None = None) -> list[int]:
    """Indices into ``pool`` of ``k`` demonstrations, in the order they are shown.

    ``labels``: the label order for balancing (default: sorted labels of the pool). ``exclude``: pool
    indices never chosen (e.g. the query itself). ``similarities``: for ``"similar"``, each pool example's
    cosine to the query (see ``cosine_to``).
    """
    check_choice(k, selection, order)
    candidates = _candidates(pool, exclude)
    if k > len(candidates):
        raise WorkbenchError(f"k = {k} demonstrations asked for, but only {len(candidates)} examples are there "
                             "to choose from")
    rng = random.Random(seed)
    if selection == "random":
        chosen = rng.sample(candidates, k)
    elif selection == "balanced":
        chosen = _balanced(pool, candidates, k, labels, rng)
    else:
        if similarities is None or len(similarities) != len(pool):
            raise WorkbenchError("similar demonstrations need each pool example's similarity to the query")
        ranked = sorted(candidates, key=lambda i: (-float(similarities[i]), i))[:k]
        chosen = list(reversed(ranked))  # the most similar last, next to the query
    return _ordered(pool, chosen, order, labels, rng)


def _balanced(pool: Sequence[Demonstration], candidates: list[int], k: int, labels: Sequence[str] | None,
              rng: random.Random) -> list[int]:
    labels = list(labels) if labels is not None else sorted({pool[i].label for i in candidates})
    by_label = {label: [i for i in candidates if label_key(pool[i].label) == label_key(label)] for label in labels}
    for label in labels:
        rng.shuffle(by_label[label])
    chosen: list[int] = []
    taken = {label: 0 for label in labels}
    while len(chosen) < k:  # round robin over labels: counts differ by at most one while a label has examples
        progressed = False
        for label in labels:
            if len(chosen) == k:
                break
            if taken[label] < len(by_label[label]):
                chosen.append(by_label[label][taken[label]])
                taken[label] += 1
                progressed = True
        if not progressed:
            break
    return chosen


def _ordered(pool: Sequence[Demonstration], chosen: list[int], order: str, labels: Sequence[str] | None,
             rng: random.Random) -> list[int]:
    if order == "shuffled":
        chosen = list(chosen)
        rng.shuffle(chosen)
    elif order == "by-label":
        rank = {label: r for r, label in enumerate(labels or sorted({pool[i].label for i in chosen}))}
        chosen = sorted(chosen, key=lambda i: (rank.get(pool[i].label, len(rank)), chosen.index(i)))
    return list(chosen)


def cosine_to(query: Any, vectors: Any) -> np.ndarray:
    """Cosine of one vector [H] to each row of [n, H]."""
    q = np.asarray(query, dtype=np.float64)
    v = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(v, axis=1) * max(np.linalg.norm(q), 1e-12)
    return (v @ q) / np.maximum(norms, 1e-12)


def demonstration_text(template: Template, verbalizer: Verbalizer, demo: Demonstration) -> str:
    """One demonstration: the template filled with the demonstration's inputs and its label's first answer."""
    return template.fill(demo.x, demo.x2, answer=verbalizer.answers_for(demo.label)[0])


def demonstrations_text(template: Template, verbalizer: Verbalizer, demos: Sequence[Demonstration],
                        separator: str = SEPARATOR) -> str:
    """The demonstrations as they precede the query: each followed by ``separator`` ("" for none)."""
    return "".join(demonstration_text(template, verbalizer, d) + separator for d in demos)


def full_prompt(template: Template, verbalizer: Verbalizer, demos: Sequence[Demonstration], x: str,
                x2: str | None = None, separator: str = SEPARATOR, answer: str = "[z]") -> str:
    """The whole prompt shown to the student: demonstrations, then the query with ``answer`` at [z]."""
    return demonstrations_text(template, verbalizer, demos, separator) + template.fill(x, x2, answer=answer)
