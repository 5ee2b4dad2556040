"""What the attention views use from the engine: the attention types and the pure numpy readings a widget
calls (see lm_workbench.lazy_exports)."""

from __future__ import annotations

from lm_workbench.lazy_exports import engine_names, lazy_exports

FOR_VIEWS = engine_names({
    "attention": "AttentionSide AttentionKind attention_side attention_matrix hide_special token_similarity "
                 "lines_above",
    "attention_grid": "grid_values THUMB",
    "attention_walkthrough": "AttentionWalkthrough",
    "analysis": "Encoding",
})
__all__ = sorted(FOR_VIEWS)
__getattr__ = lazy_exports(FOR_VIEWS, __name__)
