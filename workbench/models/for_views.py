"""What the window and model panel use from the engine: the loaded model's types, the family enum, byte
formatting, text files and the start-up probe's encoder (see lm_workbench.lazy_exports)."""

from __future__ import annotations

from lm_workbench.lazy_exports import engine_exports

FOR_VIEWS, __all__, __getattr__ = engine_exports(__name__, {
    "models.loading": "LoadedModel ModelInfo",
    "models.families": "Family",
    "models.memory": "format_bytes",
    "text_input": "read_text_file",
    "analysis": "encode",
    "data.hub_datasets": "cached_datasets datasets_cache looks_like_dataset",
})
