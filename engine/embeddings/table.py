"""The result of an extraction: occurrences and their vectors per layer.

Row i of every vector array belongs to ``occurrences[i]``. Arrays are float32
in memory, or float16 memory maps when they came through the activation
cache; ``vectors_for`` always returns float32 for the representation asked
for (a layer, a layer mean, a scalar mix or the static baseline), computing
means and mixes block by block so a memory-mapped table is never loaded whole.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

import numpy as np

from lm_workbench.engine.embeddings.occurrences import Occurrence
from lm_workbench.engine.embeddings.representation import LayerSpec, scalar_mix
from lm_workbench.engine.errors import WorkbenchError

LayerKey = Union[int, str]  # a layer number or "static"
BLOCK_ROWS = 8192


@dataclass
class OccurrenceTable:
    """Occurrences of words in a corpus with one pooled vector per occurrence and layer.

    ``sentences`` are the corpus lines (``occurrences[i].line`` indexes them),
    ``labels`` the label of each occurrence's line (None without a label
    column), ``line_numbers`` the source line of each corpus line.
    """

    occurrences: list[Occurrence]
    vectors: dict[LayerKey, np.ndarray]  # each [n, H]
    sentences: list[str]
    labels: list[str | None] | None
    line_numbers: list[int]
    num_layers: int  # hidden states 0..num_layers
    pooling: str = "mean"
    model: str = ""
    family: str = ""
    truncated_lines: int = 0
    dropped_occurrences: int = 0
    notices: list[str] = field(default_factory=list)
    from_cache: bool = False

    def __len__(self) -> int:
        return len(self.occurrences)

    @property
    def words(self) -> list[str]:
        """Each occurrence's word, case-folded (the colour/grouping key)."""
        return [o.key for o in self.occurrences]

    @property
    def layers(self) -> list[int]:
        return sorted(k for k in self.vectors if k != "static")

    def context(self, i: int) -> tuple[str, int, int]:
        """(sentence, char_start, char_end) of occurrence i, to show the token highlighted."""
        o = self.occurrences[i]
        return self.sentences[o.line], o.char_start, o.char_end

    def _layer(self, key: LayerKey) -> np.ndarray:
        if key not in self.vectors:
            have = ", ".join(str(k) for k in sorted(self.vectors, key=str))
            raise WorkbenchError(f"layer {key} was not extracted (this table has {have}); extract it first")
        return self.vectors[key]

    def vectors_for(self, spec: LayerSpec) -> np.ndarray:
        """[n, H] float32 vectors of the representation ``spec``."""
        if spec.kind == "static":
            return np.asarray(self._layer("static"), dtype=np.float32)
        if spec.kind == "layer":
            return np.asarray(self._layer(int(spec.layer)), dtype=np.float32)
        sources = [self._layer(layer) for layer in spec.layers_needed]
        n, hidden = sources[0].shape
        out = np.empty((n, hidden), dtype=np.float32)
        for start in range(0, n, BLOCK_ROWS):
            rows = slice(start, min(n, start + BLOCK_ROWS))
            block = np.stack([np.asarray(s[rows], dtype=np.float32) for s in sources])  # [layers, rows, H]
            if spec.kind == "mean":
                out[rows] = block.mean(axis=0)
            else:
                out[rows] = scalar_mix(block, spec.scalars, spec.gamma)
        return out
