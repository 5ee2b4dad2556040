"""What the window and model panel use from the engine: the loaded model's types, the family enum, byte
formatting, text files and the start-up probe's encoder (see lm_workbench.lazy_exports)."""

from __future__ import annotations

from lm_workbench.lazy_exports import lazy_exports

_E = "lm_workbench.engine."
FOR_VIEWS = {
    "LoadedModel": _E + "models.loading",
    "ModelInfo": _E + "models.loading",
    "Family": _E + "models.families",
    "format_bytes": _E + "models.memory",
    "read_text_file": _E + "text_input",
    "encode": _E + "analysis",
    "cached_datasets": _E + "data.hub_datasets",
    "datasets_cache": _E + "data.hub_datasets",
    "looks_like_dataset": _E + "data.hub_datasets",
}
__all__ = sorted(FOR_VIEWS)
__getattr__ = lazy_exports(FOR_VIEWS, __name__)
