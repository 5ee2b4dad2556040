"""BART's noising functions on one example (Lewis et al. 2020, "BART", section 2.2).

They follow fairseq's ``DenoisingDataset``: sentence permutation splits the
text after full stops and shuffles the sentences (``fraction`` of them, all
by default); token masking and token deletion pick tokens uniformly without
replacement; text infilling draws span lengths from Poisson(lambda) until the
budget is met and trims the last one to the budget (the plugin API's
``draw_poisson_lengths`` and ``trim_to_budget``), and ``place_spans`` replaces each span by a
single mask token (a zero-length span inserts one); document rotation starts
the document at a uniformly chosen token. Special tokens (BOS, EOS) stay in
place throughout. Spans never overlap and are kept a token apart.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lm_workbench.engine.plugin_api import CODE, PositionKind, VocabInfo, sentence_spans

U, MASKED, DELETED, INSERTED, MOVED = (CODE[k] for k in (
    PositionKind.UNCHANGED, PositionKind.MASKED, PositionKind.DELETED, PositionKind.INSERTED, PositionKind.MOVED))


def sentences(content: np.ndarray, info: VocabInfo) -> list[tuple[int, int]]:
    """(start, end) of each sentence: a sentence ends after a run of full stops, or at the end."""
    return sentence_spans(info.sentence_ends(content))


def permute_sentences(content: np.ndarray, info: VocabInfo, rng: np.random.Generator, fraction: float) -> np.ndarray:
    """An index array reordering ``content`` by sentences (fairseq's ``permute_sentences``)."""
    parts = sentences(content, info)
    n = len(parts)
    k = math.ceil(n * fraction)
    chosen = rng.permutation(n)[:k]
    ordering = np.arange(n)
    ordering[chosen] = chosen[rng.permutation(k)]
    if not n:
        return np.arange(len(content))
    return np.concatenate([np.arange(*parts[i]) for i in ordering])


def place_spans(lengths: list[int], usable: np.ndarray, rng: np.random.Generator,
                first_gap: int, last_gap: int) -> list[tuple[int, int]]:
    """(start, length) of each span that finds a place, in drawing order.

    A span of ``length`` > 0 starts uniformly among the places where it covers
    only usable positions and touches no other span; a zero-length span is an
    insertion before a position in [first_gap, last_gap] that is neither
    inside a span nor already used.
    """
    usable = usable.copy()
    n = len(usable)
    inside = np.zeros(n + 1, dtype=bool)  # inside[j]: gap j lies strictly inside a span
    used_gaps: set[int] = set()
    placed: list[tuple[int, int]] = []
    for length in lengths:
        if length == 0:
            gaps = [g for g in range(first_gap, last_gap + 1) if not inside[g] and g not in used_gaps]
            if gaps:
                gap = gaps[int(rng.integers(len(gaps)))]
                used_gaps.add(gap)
                placed.append((gap, 0))
            continue
        if length > n:
            continue
        cum = np.concatenate([[0], np.cumsum(usable)])
        starts = np.flatnonzero(cum[length:] - cum[:-length] == length)
        if len(starts) == 0:
            continue
        start = int(starts[rng.integers(len(starts))])
        usable[max(0, start - 1): start + length + 1] = False
        inside[start + 1: start + length] = True
        placed.append((start, length))
    return placed


@dataclass
class Noised:
    """The encoder's input and how it came about (kind codes, see ``lm_workbench.engine.plugin_api.CODE``)."""

    ids: np.ndarray  # input ids
    origin: np.ndarray  # original position of each input token; -1 for an inserted mask
    kinds: np.ndarray  # kind of each input token
    original_kinds: np.ndarray  # what happened to each original token
    spans: list[tuple[int, int]]  # (input position of the span's mask, original tokens it covers), drawing order


def build_input(seq: np.ndarray, origin: np.ndarray, masked: np.ndarray, deleted: np.ndarray,
                spans: list[tuple[int, int]], mask_id: int | None) -> Noised:
    """Apply masking, deletion and infilling to ``seq`` (already permuted: ``origin[j]`` is where seq[j] was)."""
    n = len(seq)
    moved = origin != np.arange(n)
    original_kinds = np.where(moved[np.argsort(origin)], MOVED, U)
    span_len = {s: k for s, k in spans if k > 0}
    inserts = {s for s, k in spans if k == 0}
    out: list[tuple[int, int, int]] = []  # (id, origin, kind)
    where: dict[tuple[int, int], int] = {}  # span -> its mask's input position
    j = 0
    while j <= n:
        if j in inserts:
            where[(j, 0)] = len(out)
            out.append((mask_id, -1, INSERTED))
        if j == n:
            break
        if j in span_len:
            where[(j, span_len[j])] = len(out)
            out.append((mask_id, origin[j], MASKED))
            original_kinds[origin[j: j + span_len[j]]] = MASKED
            j += span_len[j]
            continue
        if deleted[j]:
            original_kinds[origin[j]] = DELETED
        elif masked[j]:
            out.append((mask_id, origin[j], MASKED))
            original_kinds[origin[j]] = MASKED
        else:
            out.append((seq[j], origin[j], MOVED if moved[j] else U))
        j += 1
    table = np.array(out, dtype=np.int64).reshape(-1, 3)
    return Noised(table[:, 0].copy(), table[:, 1].copy(), table[:, 2].copy(), original_kinds,
                  [(where[s], s[1]) for s in spans if s in where])


def rotate(noised: Noised, fixed: np.ndarray, rng: np.random.Generator) -> None:
    """Document rotation, in place: the tokens not ``fixed`` (BOS, EOS) start at a uniformly chosen one."""
    rotating = np.flatnonzero(~fixed)
    k = int(rng.integers(len(rotating))) if len(rotating) > 1 else 0
    if not k:
        return
    new_place = rotating[(np.arange(len(rotating)) - k) % len(rotating)]  # token c goes to place c - k (mod R)
    for array in (noised.ids, noised.origin, noised.kinds):
        array[new_place] = array[rotating].copy()
    position = np.arange(len(noised.ids))
    position[rotating] = new_place
    noised.spans = [(int(position[p]), count) for p, count in noised.spans]
    noised.kinds[rotating] = np.where(noised.kinds[rotating] == U, MOVED, noised.kinds[rotating])
    originals = noised.origin[rotating][noised.origin[rotating] >= 0]
    noised.original_kinds[originals] = np.where(noised.original_kinds[originals] == U, MOVED,
                                                noised.original_kinds[originals])
