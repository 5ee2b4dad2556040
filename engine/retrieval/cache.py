"""The on-disk index cache: a corpus's passage vectors, keyed by model + pooling + corpus hash.

A key is the SHA-256 of what makes the vectors what they are: the model (its folder and the size and time of
its weight and config files, so a model trained again gets new vectors), its number format, the pooling
and window, and the corpus's content hash. Each key is a folder holding ``meta.json`` (those facts, in
clear) and the vectors in chunks (``chunk-000000.npy`` …, float32, written whole then renamed), so an
encoding that is cancelled or killed resumes at the first chunk it lacks. A folder whose ``meta.json`` does
not say exactly what the key stands for (another model's index, a damaged file) is never read: it is
emptied and encoded again.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

CACHE_FORMAT = "lm-workbench-retrieval-index/1"


def model_identity(loaded: Any) -> str:
    """The model as the cache knows it: its folder, and the size and change time of its weights and config."""
    folder = Path(getattr(loaded.info, "folder", "") or ".")
    parts = [str(folder.resolve()), str(getattr(loaded.info, "dtype", ""))]
    if folder.is_dir():
        files = [p for pattern in ("*.safetensors", "*.bin", "config.json", "modules.json", "*/config.json")
                 for p in folder.glob(pattern)]
        for f in sorted(set(files)):
            st = f.stat()
            parts.append(f"{f.relative_to(folder).as_posix()}:{st.st_size}:{st.st_mtime_ns}")
    return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()


def index_meta(loaded: Any, pooling: str, mode: str, window: int, corpus: Any, dim: int) -> dict:
    return {"format": CACHE_FORMAT, "model": str(loaded.info.spec), "model_identity": model_identity(loaded),
            "pooling": pooling, "mode": mode, "window": int(window), "corpus": corpus.digest,
            "passages": len(corpus), "dim": int(dim)}


def cache_key(meta: dict) -> str:
    return hashlib.sha256(json.dumps(meta, sort_keys=True).encode("utf-8")).hexdigest()[:32]


class IndexCache:
    """One key's folder: which chunks are done, reading and writing them."""

    def __init__(self, root: str | Path, meta: dict, chunk_size: int):
        self.meta = {**meta, "chunk_size": int(chunk_size)}
        self.key = cache_key(self.meta)
        self.folder = Path(root) / self.key
        self.chunk_size = int(chunk_size)
        self.discarded = False  # a folder under this key said something else and was emptied

    def open(self) -> None:
        """Make the folder; a folder whose meta.json differs is emptied first (never mixed)."""
        meta_file = self.folder / "meta.json"
        if self.folder.is_dir():
            try:
                found = json.loads(meta_file.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                found = None
            if found != self.meta:
                shutil.rmtree(self.folder, ignore_errors=True)
                self.discarded = True
        self.folder.mkdir(parents=True, exist_ok=True)
        if not meta_file.is_file():
            meta = json.dumps(self.meta, indent=1).encode("utf-8")
            _write_atomic(meta_file, lambda fh: fh.write(meta))

    def chunks(self) -> int:
        return -(-int(self.meta["passages"]) // self.chunk_size)

    def chunk_path(self, i: int) -> Path:
        return self.folder / f"chunk-{i:06d}.npy"

    def truncated_path(self, i: int) -> Path:
        return self.folder / f"chunk-{i:06d}.truncated"

    def done(self, i: int) -> bool:
        return self.chunk_path(i).is_file() and self.truncated_path(i).is_file()

    def read(self, i: int) -> tuple[np.ndarray, int] | None:
        """The chunk's vectors and truncated count; None (and the chunk dropped) when it cannot be read."""
        try:
            vectors = np.load(self.chunk_path(i), allow_pickle=False)
            truncated = int(self.truncated_path(i).read_text(encoding="ascii"))
        except (OSError, ValueError):
            vectors = None
        expected = min(self.chunk_size, int(self.meta["passages"]) - i * self.chunk_size)
        if vectors is None or vectors.shape != (expected, int(self.meta["dim"])) or vectors.dtype != np.float32:
            self.chunk_path(i).unlink(missing_ok=True)
            self.truncated_path(i).unlink(missing_ok=True)
            return None
        return vectors, truncated

    def write(self, i: int, vectors: np.ndarray, truncated: int) -> None:
        array = np.ascontiguousarray(vectors, dtype=np.float32)
        _write_atomic(self.chunk_path(i), lambda fh: np.save(fh, array, allow_pickle=False))
        _write_atomic(self.truncated_path(i), lambda fh: fh.write(str(int(truncated)).encode("ascii")))


def _write_atomic(path: Path, write: Any) -> None:
    """``write(file)`` into a temporary file of this writer's own in ``path``'s folder, then renamed into place:
    two writers of one chunk (the window and the CLI indexing the same corpus, or two threads) never rename each
    other's half-written file (a fixed ``.tmp`` name was shared); a failed write leaves no temporary file."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
