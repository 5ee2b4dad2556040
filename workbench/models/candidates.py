"""Models the user already has, to suggest when the loaded one is too small for a task (e.g. prompting).

Recent models (folders and hub ids the user opened) come first, then hub models found in the local hub cache
(its ``models--org--name`` folders). Nothing is downloaded and no model is loaded to list them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable


def cached_hub_models(cache: Path | None = None) -> list[str]:
    """Hub ids of the models in the local hub cache, sorted."""
    if cache is None:
        from lm_workbench.engine.models.sources import hub_cache_dir

        cache = hub_cache_dir()
    if not cache.is_dir():
        return []
    return sorted(p.name[len("models--"):].replace("--", "/") for p in cache.iterdir()
                  if p.is_dir() and p.name.startswith("models--"))


def model_candidates(recent: Iterable[str], exclude: str = "", cache: Path | None = None) -> list[str]:
    """Recent models, then cached hub models, each once, without ``exclude`` (the loaded one)."""
    return [spec for spec in dict.fromkeys([*recent, *cached_hub_models(cache)]) if spec and spec != exclude]
