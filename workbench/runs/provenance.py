"""Provenance: what produced a run, recorded so a result can be traced and redone.

``collect_provenance`` gathers package versions, the platform, device, dtype,
seed, a cheap fingerprint of the model folder, a hash of the data files, the
plugin and the command line. No heavy imports: versions come from
``importlib.metadata``, never from importing the packages.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import platform
import struct
import sys
import time
from pathlib import Path
from typing import Iterable

CHUNK = 1 << 20  # 1 MiB
PACKAGES = ("torch", "transformers", "tokenizers", "peft", "numpy", "lm-workbench")
# sub-folders the workbench writes into a model's folder (lm_workbench.lens.files.FOLDER): not part of the model
BESIDE_THE_MODEL = frozenset({"tuned_lens"})
_MAX_HEADER = 100 * 1024 * 1024  # the safetensors format caps its header at 100 MB


def package_versions(names: Iterable[str] = PACKAGES) -> dict[str, str | None]:
    """Installed versions by distribution name (None when missing), plus python."""
    versions: dict[str, str | None] = {"python": platform.python_version()}
    for name in names:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def _safetensors_header(path: Path) -> bytes:
    """The 8-byte little-endian length followed by the JSON header of a safetensors file."""
    with path.open("rb") as fh:
        prefix = fh.read(8)
        if len(prefix) < 8:
            return prefix  # truncated file: hash what there is
        (length,) = struct.unpack("<Q", prefix)
        return prefix + fh.read(min(length, _MAX_HEADER))


def fingerprint_model_folder(path: str | Path) -> str:
    """A sha256 over ``config.json`` and the header of each ``*.safetensors`` file.

    The headers hold every tensor's name, dtype, shape and byte offsets, so the
    fingerprint changes with the architecture or the layout while reading only
    kilobytes of a multi-GB checkpoint. Files are taken in sorted order, and
    each file's name is hashed too. What the workbench itself keeps in a model's folder (``BESIDE_THE_MODEL``: the
    tuned lens's translators) is left out, so training a tuned lens does not make the model another one. Raises
    FileNotFoundError for a missing folder.
    """
    folder = Path(path)
    if not folder.is_dir():
        raise FileNotFoundError(f"model folder not found: {folder}")
    digest = hashlib.sha256()
    config = folder / "config.json"
    if config.is_file():
        digest.update(b"config.json\0")
        digest.update(config.read_bytes())
    for weights in sorted(folder.rglob("*.safetensors")):
        if BESIDE_THE_MODEL.intersection(weights.relative_to(folder).parts[:-1]):
            continue  # the workbench's own files kept in the model's folder, not the model
        digest.update(b"\0" + weights.relative_to(folder).as_posix().encode() + b"\0")
        digest.update(_safetensors_header(weights))
    return digest.hexdigest()


def hash_files(paths: Iterable[str | Path]) -> str:
    """A sha256 over the contents of the files, in the order given, read 1 MiB at a time.

    Each file's length is mixed in before its bytes, so moving a byte from one
    file to the next changes the hash.
    """
    digest = hashlib.sha256()
    for p in paths:
        p = Path(p)
        digest.update(struct.pack("<Q", p.stat().st_size))
        with p.open("rb") as fh:
            while chunk := fh.read(CHUNK):
                digest.update(chunk)
    return digest.hexdigest()


def collect_provenance(*, device: str, dtype: str, seed: int | None,
                       model_folder: str | Path | None = None,
                       data_files: Iterable[str | Path] = (),
                       plugin: tuple[str, str] | None = None,
                       cli_command: str | None = None) -> dict:
    """Everything needed to trace a run, as a JSON-ready dict."""
    data_files = [Path(p) for p in data_files]
    return {
        "versions": package_versions(),
        "platform": {
            "system": platform.system(),
            "release": platform.release(),
            "machine": platform.machine(),
            "python_implementation": platform.python_implementation(),
            "executable": sys.executable,
        },
        "device": device,
        "dtype": dtype,
        "seed": seed,
        "model_folder": None if model_folder is None else str(model_folder),
        "model_fingerprint": None if model_folder is None else fingerprint_model_folder(model_folder),
        "data_files": [str(p) for p in data_files],
        "data_hash": hash_files(data_files) if data_files else None,
        "plugin": None if plugin is None else {"name": plugin[0], "version": plugin[1]},
        "cli_command": cli_command,
        "time": time.time(),
    }

