"""What the attention views use from the engine: the attention types and the pure numpy readings a widget
calls (see lm_workbench.lazy_exports)."""

from __future__ import annotations

from lm_workbench.lazy_exports import lazy_exports

_E = "lm_workbench.engine."
FOR_VIEWS = {
    "AttentionSide": _E + "attention",
    "AttentionKind": _E + "attention",
    "attention_side": _E + "attention",
    "attention_matrix": _E + "attention",
    "hide_special": _E + "attention",
    "token_similarity": _E + "attention",
    "lines_above": _E + "attention",
    "grid_values": _E + "attention_grid",
    "THUMB": _E + "attention_grid",
    "AttentionWalkthrough": _E + "attention_walkthrough",
    "Encoding": _E + "analysis",
}
__all__ = sorted(FOR_VIEWS)
__getattr__ = lazy_exports(FOR_VIEWS, __name__)
