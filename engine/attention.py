"""Attention weights as the views show them: selected, filtered, renormalised.

Pure numpy over the arrays ``lm_workbench.engine.analysis.encode`` returns, so the head
view, the model grid, the CLI and tests share one computation:

- ``attention_matrix``: [heads, queries, keys] for one layer of one kind
  (encoder self-attention, decoder self-attention or cross-attention);
- ``hide_special``: drop special tokens ([CLS], [SEP], <s>...) on both sides
  and renormalise every remaining row to sum to 1 — special tokens soak up
  much of the weight (Clark et al. 2019, "What does BERT look at?");
- ``lines_above``: the (query, key, weight) triples at or above a threshold,
  the lines the head view draws (and how many there are);
- ``token_similarity``: for a model with no attention (ELMo's LSTMs), what
  the view shows instead: the cosine similarity of every pair of token
  vectors at one layer.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Sequence

import numpy as np

from lm_workbench.engine.analysis import Encoding
from lm_workbench.engine.errors import WorkbenchError


class AttentionKind(str, Enum):
    ENCODER = "encoder"  # self-attention of an encoder or a decoder-only model
    DECODER = "decoder"  # decoder self-attention of an encoder-decoder (causal)
    CROSS = "cross"  # decoder queries attending to encoder keys


@dataclass(frozen=True)
class AttentionSide:
    """One attention tensor and the tokens on its two sides."""

    weights: np.ndarray  # [layers, heads, queries, keys]
    query_tokens: list[str]
    key_tokens: list[str]
    query_special: list[bool]
    key_special: list[bool]
    query_segments: list[int | None]
    key_segments: list[int | None]


def attention_side(encoding: Encoding, kind: AttentionKind | str = AttentionKind.ENCODER) -> AttentionSide:
    kind = AttentionKind(kind)
    tok = encoding.tokenized
    if kind is AttentionKind.ENCODER:
        if encoding.attentions is None:
            raise WorkbenchError("this encoding has no attention weights (it was made without them)")
        return AttentionSide(encoding.attentions, tok.tokens, tok.tokens, tok.special, tok.special,
                             tok.segments, tok.segments)
    dec = encoding.decoder
    if dec is None:
        raise WorkbenchError(f"{kind.value} attention exists only for encoder-decoder models")
    weights = dec.attentions if kind is AttentionKind.DECODER else dec.cross_attentions
    if weights is None:
        raise WorkbenchError("this encoding has no attention weights (it was made without them)")
    dec_special = [False] * len(dec.tokens)
    dec_special[0] = True  # the decoder start token
    keys = (dec.tokens, dec_special, [None] * len(dec.tokens)) if kind is AttentionKind.DECODER else (
        tok.tokens, tok.special, tok.segments)
    return AttentionSide(weights, dec.tokens, keys[0], dec_special, keys[1], [None] * len(dec.tokens), keys[2])


def attention_matrix(side: AttentionSide, layer: int, heads: Sequence[int] | None = None) -> np.ndarray:
    """[chosen heads, queries, keys] of one layer; raises a clear error for out-of-range choices."""
    n_layers, n_heads = side.weights.shape[:2]
    if not 0 <= layer < n_layers:
        raise WorkbenchError(f"layer {layer} does not exist: the model has layers 0..{n_layers - 1}")
    heads = list(range(n_heads)) if heads is None else list(heads)
    bad = [h for h in heads if not 0 <= h < n_heads]
    if bad or not heads:
        raise WorkbenchError(f"head {bad[0] if bad else '(none)'} does not exist: the model has heads 0..{n_heads - 1}")
    return side.weights[layer, heads]


def hide_special(weights: np.ndarray, query_special: Sequence[bool], key_special: Sequence[bool]
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Drop special tokens on both sides and renormalise rows; returns (weights, kept queries, kept keys).

    ``weights`` is [..., queries, keys]. A row whose whole weight sat on special
    tokens renormalises to zeros (nothing left to show), never to NaN.
    """
    q_keep = np.flatnonzero(~np.asarray(query_special, dtype=bool))
    k_keep = np.flatnonzero(~np.asarray(key_special, dtype=bool))
    kept = weights[..., q_keep, :][..., :, k_keep]
    sums = kept.sum(axis=-1, keepdims=True)
    renorm = np.divide(kept, sums, out=np.zeros_like(kept), where=sums > 0)
    return renorm, q_keep, k_keep


def lines_above(weights: np.ndarray, threshold: float = 0.01) -> np.ndarray:
    """(query, key, weight) rows of a [queries, keys] matrix with weight ≥ threshold, heaviest first."""
    q, k = np.nonzero(weights >= threshold)
    w = weights[q, k]
    order = np.argsort(-w, kind="stable")
    return np.stack([q[order], k[order], w[order]], axis=1) if len(w) else np.zeros((0, 3))



def token_similarity(encoding: Encoding, layer: int) -> np.ndarray:
    """[tokens, tokens] cosine similarity between the token vectors of hidden-state ``layer`` (0 = input layer).

    A zero vector (nothing to compare) has similarity 0 with everything.
    """
    states = encoding.hidden_states
    if not 0 <= layer < states.shape[0]:
        raise WorkbenchError(f"layer {layer} does not exist: the model has hidden states 0..{states.shape[0] - 1}")
    vectors = states[layer].astype(np.float64)  # [T, H]
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    unit = np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)
    return np.clip(unit @ unit.T, -1.0, 1.0)
