"""Model B's head view beside model A's (the model panel's "Compare with…"): the same text, layer and heads.

B may have fewer layers or heads than A: its head view shows A's layer clamped to B's last and the chosen
heads B has (all of B's heads when it has none of them), and its title says which. A model B with no attention
(ELMo) says so instead. The job that encodes A encodes B after it (``lm_workbench.ui.view_kit.view_base.paired``).
"""

from __future__ import annotations

from typing import Any, Sequence

from lm_workbench.ui.attention.head_view import HeadView
from lm_workbench.ui.widgets.scroll_area import scroll_area


class ModelBHeads:
    def __init__(self) -> None:
        self.head_view = HeadView()
        self.scroll = scroll_area(self.head_view)
        self.side: Any = None  # B's AttentionSide
        self.note = ""  # what B's title adds: the layer and heads shown

    def set_encoding(self, encoding: Any) -> None:
        from lm_workbench.attention.for_views import AttentionKind, attention_side

        if encoding is None:
            self.side = None
            self.head_view.show_hint("Model B has no attention (an LSTM language model): see the Compare tab.")
            return
        self.side = attention_side(encoding, AttentionKind.ENCODER)
        self.head_view.set_side(self.side)

    def clear(self, hint: str = "") -> None:
        self.side = None
        self.head_view.show_hint(hint)

    def set_selection(self, layer: int, heads: Sequence[int], *, hide_special: bool, threshold: float) -> str:
        """Show A's selection on B as far as B has it; returns what is shown, with B's own counts
        ("layer 1 of 6, head 3 of 12", "layer 0 of 6, mean of heads 0-3 of 12", "layer 0 of 6, all 12 heads")."""
        if self.side is None:
            return ""
        layers, n_heads = self.side.weights.shape[:2]
        layer = min(layer, layers - 1)
        shown = [h for h in heads if h < n_heads] or list(range(n_heads))
        self.head_view.set_selection(layer, shown, hide_special=hide_special, threshold=threshold)
        return f"layer {layer} of {layers}, {heads_text(shown, n_heads)}"


def heads_text(shown: Sequence[int], n_heads: int) -> str:
    """Which of a model's ``n_heads`` heads are shown, in words."""
    if len(shown) == n_heads:
        return f"all {n_heads} heads" if n_heads > 1 else "its one head"
    if len(shown) == 1:
        return f"head {shown[0]} of {n_heads}"
    run = list(range(shown[0], shown[0] + len(shown))) == list(shown)
    listed = f"{shown[0]}-{shown[-1]}" if run else ", ".join(str(h) for h in shown)
    return f"heads {listed} of {n_heads}"
