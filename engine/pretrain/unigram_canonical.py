"""A Unigram (SentencePiece-style) model from ``tokenizers``' trainer, made the same in every process.

The Rust trainer learns the same pieces on the same corpus, but two things about them depend on the process's
hash order: the characters it must keep but did not learn get the scores ``m - 0.0001·k`` (k = 0, 1, ...; m the
lowest learnt score) in an arbitrary order, and summations leave differences of about 1e-10 in a few other scores;
the ids (positions, sorted by score) follow. ``canonical_unigram`` gives that band's scores (with those of the
single characters that tie with its top) to its characters in character order, rounds every score to
``DECIMALS`` places and sorts the pieces by (score descending, piece), special tokens first
as trained: two trainings on one corpus then give one tokenizer file (issue 48).
"""

from __future__ import annotations

import json
from typing import Any

DECIMALS = 6  # far below any difference that matters for a segmentation, far above the summation noise
PENALTY_STEP = 1e-4  # the trainer's step between the kept characters' scores


def _band(pieces: list[tuple[str, float]]) -> list[int]:
    """Indices of the single characters whose scores form the trainer's ``m - 0.0001·k`` band (empty if none)."""
    singles = [(i, s) for i, (p, s) in enumerate(pieces) if len(p) == 1]
    if len(singles) < 2:
        return []
    # The band's scores share their remainder modulo the step; cluster by that remainder (circularly).
    keyed = sorted(((s / PENALTY_STEP) % 1.0, i, s) for i, s in singles)
    groups: list[list[tuple[float, int, float]]] = [[keyed[0]]]
    for item in keyed[1:]:
        if item[0] - groups[-1][-1][0] < 1e-4:
            groups[-1].append(item)
        else:
            groups.append([item])
    if len(groups) > 1 and keyed[0][0] + 1.0 - keyed[-1][0] < 1e-4:  # the remainder wrapped around 1.0
        groups[0] = groups.pop() + groups[0]
    best: list[int] = []
    for group in groups:  # the longest run of scores one step apart (a stray character may share the remainder)
        ordered = sorted(group, key=lambda item: -item[2])
        run = [ordered[0]]
        for previous, item in zip(ordered, ordered[1:]):
            if abs((previous[2] - item[2]) - PENALTY_STEP) < 1e-7:
                run.append(item)
            else:
                if len(run) > len(best):
                    best = [i for _, i, _ in run]
                run = [item]
        if len(run) >= 2 and len(run) > len(best):
            best = [i for _, i, _ in run]
    return best if len(best) >= 2 else []


def canonical_unigram(tokenizer: Any, specials: tuple[str, ...]) -> Any:
    """The same ``tokenizers.Tokenizer`` with its Unigram model in canonical form (see the module docstring);
    ``specials`` keep their places at the front. Returns a new tokenizer."""
    from tokenizers import Tokenizer

    data = json.loads(tokenizer.to_str())
    model = data["model"]
    pieces = [(p, float(s)) for p, s in model["vocab"]]
    front = [(p, s) for p, s in pieces if p in specials]
    rest = [(p, s) for p, s in pieces if p not in specials]
    band = _band(rest)
    if band:
        # Every single character at or below the band's top (a learnt one can tie with its first score) takes
        # the group's scores, highest first, in character order: the same characters and scores in every process.
        top = max(rest[i][1] for i in band)
        group = [i for i, (p, s) in enumerate(rest) if len(p) == 1 and s <= top + 1e-7]
        scores = sorted((round(rest[i][1], DECIMALS) for i in group), reverse=True)
        for score, i in zip(scores, sorted(group, key=lambda i: rest[i][0])):
            rest[i] = (rest[i][0], score)
    rest = sorted(((p, round(s, DECIMALS)) for p, s in rest), key=lambda ps: (-ps[1], ps[0]))
    vocab = front + rest
    model["vocab"] = [[p, s] for p, s in vocab]
    unk = model.get("unk_id")
    if unk is not None:
        unk_piece = pieces[unk][0]
        model["unk_id"] = [p for p, _ in vocab].index(unk_piece)
    return Tokenizer.from_str(json.dumps(data))


__all__ = ["DECIMALS", "canonical_unigram"]
