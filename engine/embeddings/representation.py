"""Which vector stands for a word: a layer, a layer mean, a scalar mix, or static.

A ``LayerSpec`` is written ``N | static | mean:A-B | mix:s0,...,sL[:gamma]``:

- ``N``: the hidden states of layer N (0 = the embedding layer's *output*,
  which already adds position/segment embeddings and a LayerNorm, so it is
  contextual in position even if not in meaning; negative N counts from the
  last layer, ``-1`` = the last);
- ``static``: the word's rows of the input embedding matrix pooled over its
  subwords, the one vector per word type a static embedding gives;
- ``mean:A-B``: the average of layers A..B inclusive;
- ``mix:s0,...,sL[:gamma]``: ELMo's scalar mix, ``gamma * sum_j softmax(s)_j h_j``
  over all L+1 layers, with pre-softmax scalars s and a scale gamma (default 1).

A word of several subwords is pooled over them (mean by default, or its first
or last subword); pooling happens before the mix, and both are linear, so
the order does not matter for mean pooling.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lm_workbench.engine.embeddings.names import WORD_POOLINGS
from lm_workbench.engine.errors import WorkbenchError

SPEC_HELP = "N | static | mean:A-B | mix:s0,...,sL[:gamma]"


@dataclass(frozen=True)
class LayerSpec:
    """A parsed representation choice; ``layers_needed`` are the hidden-state layers it reads."""

    kind: str  # "layer" | "static" | "mean" | "mix"
    layer: int | None = None
    start: int | None = None
    end: int | None = None
    scalars: tuple[float, ...] = ()
    gamma: float = 1.0

    @property
    def label(self) -> str:
        if self.kind == "static":
            return "static"
        if self.kind == "layer":
            return f"layer {self.layer}"
        if self.kind == "mean":
            return f"mean of layers {self.start}-{self.end}"
        weights = ", ".join(f"{w:.2f}" for w in softmax(np.asarray(self.scalars, dtype=np.float64)))
        return f"scalar mix (softmax {weights}; gamma {self.gamma:g})"

    @property
    def text(self) -> str:
        """The spec written back in the parser's syntax."""
        if self.kind == "static":
            return "static"
        if self.kind == "layer":
            return str(self.layer)
        if self.kind == "mean":
            return f"mean:{self.start}-{self.end}"
        return "mix:" + ",".join(f"{s:g}" for s in self.scalars) + f":{self.gamma:g}"

    @property
    def layers_needed(self) -> tuple[int, ...]:
        if self.kind == "layer":
            return (int(self.layer),)
        if self.kind == "mean":
            return tuple(range(int(self.start), int(self.end) + 1))
        if self.kind == "mix":
            return tuple(range(len(self.scalars)))
        return ()


def _bad(text: str, why: str) -> WorkbenchError:
    return WorkbenchError(f"bad layer spec {text!r}: {why} (write {SPEC_HELP})")


def _layer_index(value: str, num_layers: int, text: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise _bad(text, f"{value!r} is not a layer number") from None
    if n < 0:
        n += num_layers + 1
    if not 0 <= n <= num_layers:
        raise _bad(text, f"layer {value} is outside 0..{num_layers} (the model has {num_layers} layers)")
    return n


def _float(value: str, text: str) -> float:
    try:
        x = float(value)
    except ValueError:
        raise _bad(text, f"{value!r} is not a number") from None
    if not np.isfinite(x):
        raise _bad(text, f"{value!r} is not a finite number")
    return x


def parse_layer_spec(text: str, num_layers: int) -> LayerSpec:
    """Parse a spec for a model with ``num_layers`` transformer layers (hidden states 0..num_layers)."""
    raw = (text or "").strip()
    if not raw:
        raise _bad(text, "it is empty")
    lowered = raw.lower()
    if lowered == "static":
        return LayerSpec("static")
    if lowered.startswith("mean:"):
        body = raw[5:]
        parts = body.split("-") if not body.startswith("-") else None
        if not parts or len(parts) != 2:
            raise _bad(text, "a range is written A-B, e.g. mean:4-6")
        start, end = (_layer_index(p.strip(), num_layers, text) for p in parts)
        if start > end:
            raise _bad(text, f"the range starts after it ends ({start} > {end})")
        return LayerSpec("mean", start=start, end=end)
    if lowered.startswith("mix:"):
        parts = raw[4:].split(":")
        if len(parts) > 2 or not parts[0].strip():
            raise _bad(text, "write mix:s0,...,sL or mix:s0,...,sL:gamma")
        scalars = tuple(_float(s.strip(), text) for s in parts[0].split(","))
        if len(scalars) != num_layers + 1:
            raise _bad(text, f"a mix needs {num_layers + 1} scalars (layers 0..{num_layers}), not {len(scalars)}")
        gamma = _float(parts[1].strip(), text) if len(parts) == 2 else 1.0
        return LayerSpec("mix", scalars=scalars, gamma=gamma)
    return LayerSpec("layer", layer=_layer_index(raw, num_layers, text))


def softmax(s: np.ndarray) -> np.ndarray:
    """Numerically stable softmax of a 1-D array."""
    e = np.exp(s - np.max(s))
    return e / e.sum()


def scalar_mix(h: np.ndarray, s, gamma: float = 1.0) -> np.ndarray:
    """ELMo's scalar mix: ``gamma * sum_j softmax(s)_j h_j``.

    h: [L+1, ..., H] (layer first); s: L+1 pre-softmax scalars. Returns [..., H]
    in h's float type (float32 for float16 input).
    """
    h = np.asarray(h)
    weights = softmax(np.asarray(s, dtype=np.float64))  # [L+1]
    if weights.shape[0] != h.shape[0]:
        raise WorkbenchError(f"a scalar mix over {h.shape[0]} layers needs {h.shape[0]} scalars, not {len(weights)}")
    dtype = np.float64 if h.dtype == np.float64 else np.float32
    mixed = np.tensordot(weights.astype(dtype), h.astype(dtype, copy=False), axes=(0, 0))  # [..., H]
    return (gamma * mixed).astype(dtype, copy=False)


def pool(vectors: np.ndarray, how: str = "mean") -> np.ndarray:
    """One vector for a word from its subwords' vectors [n_subwords, H] -> [H]."""
    if how not in WORD_POOLINGS:
        raise WorkbenchError(f"pooling must be one of {', '.join(WORD_POOLINGS)}, not {how!r}")
    if len(vectors) == 0:
        raise ValueError("a word has at least one subword")
    if how == "first":
        return vectors[0]
    if how == "last":
        return vectors[-1]
    return vectors.mean(axis=0)

