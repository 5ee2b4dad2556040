"""Offline mode, decided before anything imports the hub client.

``huggingface_hub`` reads ``HF_HUB_OFFLINE`` once, when it is first imported,
so the workbench sets it from the settings at start-up, before the engine
loads ``transformers``. Model resolution also passes ``local_files_only``
itself, so a wrong order costs time, never correctness.
"""

from __future__ import annotations

import os


def apply_offline_mode(offline: bool | None) -> bool:
    """Set the hub's offline variables from a setting (None: keep the environment). Returns the mode."""
    if offline is None:
        return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in {"1", "true", "yes", "on"}
    # If the hub client is already imported it will not notice; model resolution still honours it.
    value = "1" if offline else "0"
    os.environ["HF_HUB_OFFLINE"] = value
    os.environ["TRANSFORMERS_OFFLINE"] = value
    return offline
