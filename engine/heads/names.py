"""Heads' names that the window and the CLI read without importing torch: how to ablate, and head lists.

A head is ``L.H`` (layer L, head H, both from 0); an encoder-decoder's decoder has two attentions per layer,
``L.H`` its self-attention and ``xL.H`` its cross-attention.
"""

from __future__ import annotations

ZERO, MEAN, RESAMPLE = "zero", "mean", "resample"
HOWS = (ZERO, MEAN, RESAMPLE)
DEFAULT_HOW = ZERO
MAX_CORPUS_LINES = 2000  # mean and resample read at most this many lines of a corpus
HOW_NAMES = {ZERO: "zero (the head's output set to 0)", MEAN: "mean over a corpus", RESAMPLE: "resample from a corpus"}


def parse_heads(spec: str) -> list[tuple[str, int, int]]:
    """``"0.1,x1.3"`` -> [("self", 0, 1), ("cross", 1, 3)]; ValueError (a one-line message) otherwise."""
    heads = []
    for part in (p.strip() for p in spec.split(",")):
        if not part:
            continue
        kind = "cross" if part[:1] in ("x", "X") else "self"
        body = part[1:] if kind == "cross" else part
        layer, dot, head = body.partition(".")
        if not dot or not layer.isdigit() or not head.isdigit():
            raise ValueError(f"a head is L.H (layer and head from 0; xL.H: an encoder-decoder's cross-attention), "
                             f"not {part!r}")
        heads.append((kind, int(layer), int(head)))
    if not heads:
        raise ValueError("--heads names no head: give L.H,... (e.g. 0.1,1.3)")
    return heads


def parse_layers(spec: str) -> list[int]:
    """``"0,2"`` -> [0, 2]; ValueError (a one-line message) otherwise."""
    layers = []
    for part in (p.strip() for p in spec.split(",")):
        if part:
            if not part.isdigit():
                raise ValueError(f"--mlps lists layers from 0 (e.g. 0,2), not {part!r}")
            layers.append(int(part))
    if not layers:
        raise ValueError("--mlps names no layer: give L,... (e.g. 0,2)")
    return layers


def head_label(kind: str, layer: int, head: int) -> str:
    return f"{'x' if kind == 'cross' else ''}{layer}.{head}"
