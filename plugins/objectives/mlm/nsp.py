"""Next-sentence pairs (Devlin et al. 2019, "BERT", section 3.1, task #2; ``create_pretraining_data.py``).

Each example's content (its non-special tokens) is split into sentences after
sentence-final tokens ("." "!" "?"). With ``n`` >= 2 sentences, segment A is
the first ``k`` (``k`` uniform in 1..n-1) and, with probability 0.5, segment B
is the rest of the example (IsNext, label 0); otherwise B is taken from
another example of the batch (uniformly chosen), from a uniformly chosen
sentence of it to its end (NotNext, label 1). An example of a single sentence
is all A with a NotNext B, as in BERT's script. The pair ``[CLS] A [SEP] B
[SEP]`` keeps the example's length: while too long, the longer segment loses
its last token (BERT's ``truncate_seq_pair``, which trims the front or the
back at random; here always the back, so B of an IsNext pair starts exactly
where A's sentences ended).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lm_workbench.engine.plugin_api import VocabInfo, sentence_spans

IS_NEXT, NOT_NEXT = 0, 1


@dataclass
class Pair:
    ids: np.ndarray  # [CLS] A [SEP] B [SEP]
    segments: np.ndarray  # token_type_ids: 0 for [CLS] A [SEP], 1 for B [SEP]
    origin: np.ndarray  # position in this example's original ids, -1 for added specials and NotNext B
    label: int  # IS_NEXT or NOT_NEXT
    source: int  # index in the batch of the example B comes from


def _content(ids: np.ndarray, info: VocabInfo) -> tuple[np.ndarray, list[tuple[int, int]]]:
    positions = np.flatnonzero(~info.is_special(ids))
    return positions, sentence_spans(info.sentence_final(ids[positions]))


def truncate_pair(a: np.ndarray, b: np.ndarray, max_tokens: int) -> tuple[int, int]:
    """How many tokens of A and of B stay: the longer one (B on a tie) loses its last token until they fit."""
    la, lb = len(a), len(b)
    while la + lb > max(0, max_tokens):
        if la > lb:
            la -= 1
        else:
            lb -= 1
    return la, lb


def build_pairs(originals: list[np.ndarray], info: VocabInfo, rng: np.random.Generator,
                cls_id: int, sep_id: int) -> list[Pair]:
    """One pair per example (needs at least two examples)."""
    contents = [_content(ids, info) for ids in originals]
    pairs = []
    for i, ids in enumerate(originals):
        positions, spans = contents[i]
        n = len(spans)
        if n >= 2:
            k = int(rng.integers(1, n))
            is_next = bool(rng.random() < 0.5)
        else:
            k, is_next = n, False
        a_pos = positions[: spans[k - 1][1]] if k else positions[:0]
        if is_next:
            b_pos = positions[spans[k][0]:]
            b_ids, b_origin, source = ids[b_pos], b_pos, i
        else:
            source = int(rng.integers(0, len(originals) - 1))
            source += source >= i
            other_pos, other_spans = contents[source]
            start = other_spans[int(rng.integers(0, len(other_spans)))][0] if other_spans else 0
            b_ids = originals[source][other_pos[start:]]
            b_origin = np.full(len(b_ids), -1, dtype=np.int64)
        la, lb = truncate_pair(a_pos, b_ids, len(ids) - 3)
        pair_ids = np.concatenate([[cls_id], ids[a_pos[:la]], [sep_id], b_ids[:lb], [sep_id]]).astype(np.int64)
        segments = np.concatenate([np.zeros(la + 2, dtype=np.int64), np.ones(lb + 1, dtype=np.int64)])
        origin = np.concatenate([[-1], a_pos[:la], [-1], b_origin[:lb], [-1]]).astype(np.int64)
        pairs.append(Pair(pair_ids, segments, origin, IS_NEXT if is_next else NOT_NEXT, source))
    return pairs
