"""What the Attention tab shows, without Qt: the encoding computed for the text, the side (encoder, decoder,
cross) read from it, the model grid's thumbnails, a no-attention model's token similarity, and a preset step's
selection waiting for the attention.

``AttentionState`` keeps ``encoding`` (the engine's ``Encoding``), ``mosaics`` ((kind, hide specials) -> the
grid's values), ``side`` (the engine's ``AttentionSide`` of the chosen kind), ``no_attention`` (an ELMo: token
similarity instead), ``similarity`` ([tokens, tokens] cosine of the chosen layer), ``seq2seq``, ``preset`` and
``encoding_busy``. ``choose_kind(kind)`` reads the side (``WorkbenchError`` when the encoding has no such side);
``similarity_at(layer)`` computes the similarity; ``preset_selection(layers, heads, layer)`` is a preset's layer
and heads clamped to the model's shape. The engine is imported when first needed (it imports torch).
"""

from __future__ import annotations

from typing import Any


class AttentionState:
    def __init__(self) -> None:
        self.encoding: Any = None
        self.mosaics: dict[tuple[str, bool], Any] = {}
        self.side: Any = None
        self.seq2seq = False
        self.no_attention = False
        self.similarity: Any = None
        self.preset: dict[str, Any] | None = None
        self.encoding_busy = False

    # --------------------------------------------------------------- inputs
    @staticmethod
    def request_key(model_key: Any, text: str, pair: str | None, target: str | None) -> tuple:
        return (model_key, text, pair, target)

    def set_no_attention(self, on: bool) -> bool:
        """Whether the model has no attention (ELMo); True when that changed."""
        if on == self.no_attention:
            return False
        self.no_attention = on
        if not on:
            self.similarity = None
        return True

    def set_seq2seq(self, on: bool) -> bool:
        """True when it changed."""
        changed, self.seq2seq = on != self.seq2seq, on
        return changed

    # -------------------------------------------------------------- results
    def set_encoding(self, encoding: Any, mosaics: dict | None = None) -> None:
        self.encoding, self.mosaics = encoding, mosaics or {}

    def set_states(self, encoding: Any) -> None:
        """A model with no attention: its hidden states only."""
        self.encoding, self.side, self.mosaics = encoding, None, {}

    def clear(self) -> None:
        self.encoding = self.side = self.similarity = None

    def choose_kind(self, kind: Any) -> Any:
        """The side of ``kind`` (encoder self-attention, decoder, cross) read from the encoding, kept and returned."""
        from lm_workbench.engine.attention import attention_side

        self.side = attention_side(self.encoding, kind)
        return self.side

    def shape(self) -> tuple[int, int]:
        """(layers, heads) of the side shown."""
        return tuple(self.side.weights.shape[:2])  # type: ignore[return-value]

    def grid_values(self, kind: Any, hide: bool) -> Any:
        return self.mosaics.get((str(kind), hide))

    def similarity_at(self, layer: int) -> Any:
        """[tokens, tokens] cosine similarity of the token vectors at ``layer``, kept and returned."""
        from lm_workbench.engine.attention import token_similarity

        self.similarity = token_similarity(self.encoding, layer)
        return self.similarity

    def every_head(self, heads: list[int]) -> bool:
        return self.side is not None and len(heads) == self.side.weights.shape[1]

    # -------------------------------------------------------------- presets
    def take_preset(self) -> dict[str, Any] | None:
        preset, self.preset = self.preset, None
        return preset

    @staticmethod
    def preset_selection(preset: dict[str, Any], layers: int, heads: int, layer: int) -> tuple[int, list[int] | None]:
        """A preset's layer (clamped to the model's last) and heads ("all", or those in range; None: unchanged)."""
        chosen_layer = min(int(preset.get("layer", layer)), layers - 1)
        chosen = preset.get("heads")
        if chosen is None:
            return chosen_layer, None
        picked = list(range(heads)) if chosen == "all" else [int(h) for h in chosen if 0 <= int(h) < heads]
        return chosen_layer, picked or list(range(heads))
