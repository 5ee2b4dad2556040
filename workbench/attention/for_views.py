"""What the attention views use from the engine: the attention types and the pure numpy readings a widget
calls (see lm_workbench.lazy_exports)."""

from __future__ import annotations

from lm_workbench.lazy_exports import engine_exports

FOR_VIEWS, __all__, __getattr__ = engine_exports(__name__, {
    "attention": "AttentionSide AttentionKind attention_side attention_matrix hide_special token_similarity "
                 "lines_above",
    "attention_grid": "grid_values THUMB",
    "attention_walkthrough": "AttentionWalkthrough",
    "analysis": "Encoding",
})
