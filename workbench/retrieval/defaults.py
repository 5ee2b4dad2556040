"""Where the index cache lives and which pooling a model gets by default (light: no torch); the jobs and the
recorded runs both read them."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def index_cache_root() -> Path:
    from lm_workbench.paths import cache_dir

    return Path(cache_dir()) / "retrieval"


def default_pooling(loaded: Any) -> str:
    """The model's own pooling when its folder declares one (a sentence-transformers model), else mean."""
    from lm_workbench.engine.sentence.model_pooling import model_pooling

    try:
        declared = model_pooling(loaded.info.folder)
    except Exception:  # noqa: BLE001 - an unreadable declaration: fall back to mean pooling
        declared = None
    return "model" if declared is not None else "mean"  # any declared mode pools (lm_workbench.engine.sentence.pooling)


def effective_pooling(loaded: Any, choice: str) -> str:
    """``choice``, except "model" for a model that declares no pooling of its own: mean."""
    return default_pooling(loaded) if choice == "model" else choice
