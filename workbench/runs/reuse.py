"""A run's reuse key: what makes two runs the same computation (a study's cells, a guide page's sweep).

The key is a sha256 over the run kind, its canonical settings (sorted JSON, without where it writes:
``out_dir``, ``resume``, ``name``), the provenance fingerprint of its model (``fingerprint_model_folder`` of the
folder its model spec names; the spec itself for a hub id not on disk), the hash of each data file its settings
name, and the package versions (``lm_workbench.runs.provenance.package_versions``). A finished run carries its
key in its provenance (``study_key``), so any later study (or a view's recalled sweep, ``runs.recall``) finds it.
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path
from typing import Any

NOT_IN_KEY = ("out_dir", "resume", "name")  # settings that say where a run writes, not what it computes

KEY_FIELD = "study_key"


def canonical_settings(settings: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in settings.items() if k not in NOT_IN_KEY}


def model_fingerprint(spec: Any) -> str | None:
    """The fingerprint of the folder a model spec names (None when it names none on this machine)."""
    if not isinstance(spec, str) or not spec:
        return None
    from lm_workbench.runs.provenance import fingerprint_model_folder

    try:
        from lm_workbench.engine.models.sources import DEFAULT_MODEL_NAMES, default_model_folder
        from lm_workbench.models.spec_kinds import rewrite_spec

        if spec.lower() in DEFAULT_MODEL_NAMES:
            return fingerprint_model_folder(default_model_folder())
        folder = Path(rewrite_spec(spec)).expanduser()
        return fingerprint_model_folder(folder) if folder.is_dir() else None
    except Exception:  # noqa: BLE001 - a model this machine cannot find: the cell says so when it runs
        return None


def data_hashes(settings: dict[str, Any]) -> dict[str, str]:
    """{setting: sha256} of each setting that names a file on disk, or a list of files (a tuned lens's
    ``corpus``: one hash over them, in order)."""
    from lm_workbench.runs.provenance import hash_files

    out = {}
    for key, value in sorted(settings.items()):
        if key == "model":
            continue
        names = value if isinstance(value, list) and value else [value]
        if not all(isinstance(v, str) and len(v) < 4096 for v in names):
            continue
        try:
            paths = [Path(v) for v in names]
            if all(path.is_file() for path in paths):
                out[key] = hash_files(paths)
        except OSError:
            continue
    return out


@functools.lru_cache(maxsize=1)
def _versions() -> tuple[tuple[str, Any], ...]:
    """The package versions in the key (read once per process: a process does not change its packages)."""
    from lm_workbench.runs.provenance import package_versions

    return tuple(sorted(package_versions(KEY_PACKAGES).items()))


KEY_PACKAGES = ("torch", "transformers", "tokenizers", "peft", "numpy", "scikit-learn", "lm-workbench")


def key_parts(kind: str, settings: dict[str, Any]) -> dict[str, Any]:
    """What the key is made of: the kind, the canonical settings, the model's fingerprint, the data files' hashes
    and the package versions."""
    versions = dict(_versions())
    return {"kind": kind, "settings": canonical_settings(settings), "model": model_fingerprint(settings.get("model")),
            "data": data_hashes(settings), "versions": versions}


def reuse_key(kind: str, settings: dict[str, Any]) -> str:
    """The sha256 (hex) of ``key_parts``."""
    text = json.dumps(key_parts(kind, settings), sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def find_reusable(store: Any, kind: str, key: str) -> dict[str, Any] | None:
    """The newest finished run of ``kind`` whose provenance carries ``key``, or None."""
    for run in store.list_runs(kind=kind, status="finished", recover=False):
        prov = run.get("provenance")
        if isinstance(prov, dict) and prov.get(KEY_FIELD) == key:
            return run
    return None


def mark_key(store: Any, run_id: int, key: str) -> None:
    """Add ``key`` to a finished run's provenance (kept beside what the run recorded)."""
    prov = store.get_run(run_id).get("provenance")
    prov = dict(prov) if isinstance(prov, dict) else {}
    prov[KEY_FIELD] = key
    store.set_provenance(run_id, prov)
