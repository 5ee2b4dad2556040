"""Where a model's tuned lens lives: next to the model, or in the data folder when the model's folder is not
ours to write (the Hugging Face cache, a read-only folder, the built-in model inside the package).

``default_out_dir(model_folder)``: ``<model>/tuned_lens`` when writable, else
``<data>/tuned-lens/<folder name>-<hash>``. A run that writes elsewhere (``--out``) is remembered in
``<data>/tuned-lens/index.json`` (model folder -> translators folder), so ``find_translators`` finds the newest
one for a model wherever it went. Kept light: no torch.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from lm_workbench.paths import data_dir

FOLDER = "tuned_lens"
INDEX = "index.json"
WEIGHTS_FILE = "translators.safetensors"  # lm_workbench.engine.lens.tuned.translators.WEIGHTS_FILE (no torch here)


def _store() -> Path:
    return data_dir() / "tuned-lens"


def _key(model_folder: str | Path) -> str:
    return str(Path(model_folder).resolve())


def _ours_to_write(folder: Path) -> bool:
    parts = set(folder.resolve().parts)
    if "site-packages" in parts or ("hub" in parts and "snapshots" in parts):
        return False
    return folder.is_dir() and os.access(folder, os.W_OK)


def default_out_dir(model_folder: str | Path) -> Path:
    folder = Path(model_folder)
    if _ours_to_write(folder):
        return folder / FOLDER
    digest = hashlib.sha1(_key(folder).encode("utf-8")).hexdigest()[:10]
    return _store() / f"{folder.name}-{digest}"


def _read_index() -> dict[str, str]:
    try:
        data = json.loads((_store() / INDEX).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def remember(model_folder: str | Path, out_dir: str | Path) -> None:
    """Note that the translators for ``model_folder`` are now in ``out_dir``."""
    index = _read_index()
    index[_key(model_folder)] = str(Path(out_dir).resolve())
    store = _store()
    store.mkdir(parents=True, exist_ok=True)
    tmp = store / f".{INDEX}.tmp"
    tmp.write_text(json.dumps(index, indent=1, sort_keys=True), encoding="utf-8")
    tmp.replace(store / INDEX)


def find_translators(model_folder: str | Path | None) -> Path | None:
    """The folder holding ``model_folder``'s tuned lens (the newest remembered, else the default place), or
    None when there is none."""
    if not model_folder:
        return None
    candidates = [_read_index().get(_key(model_folder)), default_out_dir(model_folder), Path(model_folder) / FOLDER]
    for candidate in candidates:
        if candidate and (Path(candidate) / WEIGHTS_FILE).is_file():
            return Path(candidate)
    return None
