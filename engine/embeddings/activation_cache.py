"""On-disk cache of pooled occurrence vectors, as float16 memory maps.

200,000 tokens x 13 layers x 768 floats is 8 GB in float32; the cache keeps
what was computed as float16 ``.npy`` files opened with ``mmap_mode="r"``, so
a second look at the same model, corpus and words costs no forward pass and
little memory (pages are read when a view touches them).

Layout: one folder per request key under the cache folder (the caller passes
it; the engine never decides where user data lives). The key is a hash of
(model fingerprint, corpus hash, pooling, word filter); inside, one file per
layer (``layer_<n>.npy``, ``static.npy``) of shape [occurrences, hidden], the
occurrence index ``occurrences.npy`` (int64 [n, 6]) and ``meta.json``. Layers
are added to an entry as they are asked for. The folder stays under a size
cap: least recently used entries are evicted first, and a request that alone
exceeds the cap is refused with its size.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Union

import numpy as np

from lm_workbench.engine.embeddings.occurrences import MATCHING_VERSION
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.models.memory import format_bytes

DEFAULT_CAP_BYTES = 2 * 1024**3
NPY_HEADER_BYTES = 128  # each .npy file's header
FORMAT_VERSION = 1
OCCURRENCE_COLUMNS = ("line", "word_index", "token_start", "token_end", "char_start", "char_end")
LayerKey = Union[int, str]  # a layer number or "static"


def _writer() -> str:
    """What makes a temporary file this writer's own: the process and a fresh random token (two threads of one
    process, a view's job and a Guide check say, may fill the same entry at once; each renames its own file; a
    thread's ident is not enough: Python reuses it once a thread has ended, while its writer may still be open)."""
    return f"{os.getpid()}-{uuid.uuid4().hex[:12]}"


def layer_file(layer: LayerKey) -> str:
    return "static.npy" if layer == "static" else f"layer_{int(layer)}.npy"


def model_fingerprint(loaded: Any) -> str:
    """A hash that changes when the model's weights, dtype or identity change.

    Uses the spec, the folder, the precision and, per weight file, its size,
    modification time and (for safetensors) a hash of its header, so an
    overwritten checkpoint gets a new key without hashing gigabytes.
    """
    from lm_workbench.engine.models.weights import pickle_weight_files, read_safetensors_header, safetensors_files

    info = loaded.info
    parts: list[Any] = [info.spec, info.folder, info.model_type, info.dtype, info.layers, info.hidden_size]
    folder = Path(info.folder)
    if folder.is_dir():
        for path in safetensors_files(folder) + pickle_weight_files(folder) + sorted(folder.glob("*.hdf5")):
            if not path.is_file():
                continue
            stat = path.stat()
            header = b""
            if path.suffix == ".safetensors":
                header = hashlib.sha256(read_safetensors_header(path)[1]).digest()
            parts.append([path.name, stat.st_size, stat.st_mtime_ns, header.hex()])
    return hashlib.sha256(json.dumps(parts, default=str).encode("utf-8")).hexdigest()


def request_key(model: str, corpus: str, pooling: str, words: Iterable[str] | None) -> str:
    """The entry name for (model fingerprint, corpus hash, pooling, word filter)."""
    chosen = "*" if words is None else "\x1f".join(sorted(words))
    # MATCHING_VERSION: how words are found; a change of that rule must not serve old occurrence lists
    text = "\x00".join([f"v{FORMAT_VERSION}", model, corpus, pooling, chosen, f"m{MATCHING_VERSION}"])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


@dataclass
class CacheEntry:
    """What one entry holds: its metadata, occurrence index and the layers asked for (memmaps)."""

    key: str
    meta: dict
    occurrences: np.ndarray  # int64 [n, 6], columns OCCURRENCE_COLUMNS
    vectors: dict[LayerKey, np.ndarray] = field(default_factory=dict)  # float16 memmaps [n, H]


class PendingWrite:
    """New layer files being filled (memmaps in temporary files), made visible by ``commit``."""

    def __init__(self, cache: "ActivationCache", key: str, meta: dict, occurrences: np.ndarray,
                 layers: list[LayerKey], hidden: int):
        self.cache, self.key, self.meta = cache, key, dict(meta)
        self.folder = cache.folder / key
        self.folder.mkdir(parents=True, exist_ok=True)
        self.occurrences = occurrences
        self.layers = layers
        self._tmp = {layer: self.folder / f"{layer_file(layer)}.tmp-{_writer()}" for layer in layers}
        self.arrays: dict[LayerKey, np.ndarray] = {
            layer: np.lib.format.open_memmap(path, mode="w+", dtype=np.float16, shape=(len(occurrences), hidden))
            for layer, path in self._tmp.items()
        }

    def commit(self) -> None:
        for layer, array in self.arrays.items():
            array.flush()
        self.arrays.clear()
        occ_path = self.folder / "occurrences.npy"
        if not occ_path.is_file():
            _atomic_save(occ_path, self.occurrences)
        for layer, tmp in self._tmp.items():
            os.replace(tmp, self.folder / layer_file(layer))
        old = self.cache.read_meta(self.key) or {}
        layers = sorted({*old.get("layers", []), *[str(x) for x in self.layers]})
        self.cache._write_meta(self.key, {**self.meta, "layers": layers, "last_used": time.time()})

    def abort(self) -> None:
        self.arrays.clear()
        for tmp in self._tmp.values():
            try:
                tmp.unlink()
            except OSError:
                pass


def _atomic_save(path: Path, array: np.ndarray) -> None:
    tmp = path.with_name(path.name + f".tmp-{_writer()}")
    with tmp.open("wb") as f:
        np.save(f, array)
    os.replace(tmp, path)


class ActivationCache:
    """A size-capped folder of float16 vector files with least-recently-used eviction."""

    def __init__(self, folder: str | Path, cap_bytes: int = DEFAULT_CAP_BYTES):
        if cap_bytes <= 0:
            raise WorkbenchError("the activation cache's size cap must be positive")
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.cap_bytes = int(cap_bytes)

    # -- reading -------------------------------------------------------------------------------------
    def read_meta(self, key: str) -> dict | None:
        try:
            return json.loads((self.folder / key / "meta.json").read_text("utf-8"))
        except (OSError, ValueError):
            return None

    def cached_layers(self, key: str) -> set[str]:
        """Layers stored for a key, as strings ("0", "6", "static")."""
        meta = self.read_meta(key)
        if meta is None:
            return set()
        return {name for name in meta.get("layers", []) if (self.folder / key / layer_file(_parse(name))).is_file()}

    def read(self, key: str, layers: Iterable[LayerKey]) -> CacheEntry | None:
        """The entry with memmaps of ``layers``, or None when any of them is missing. Marks it used."""
        meta = self.read_meta(key)
        if meta is None or meta.get("version") != FORMAT_VERSION:
            return None
        folder = self.folder / key
        try:
            occurrences = np.load(folder / "occurrences.npy")
            vectors = {layer: np.load(folder / layer_file(layer), mmap_mode="r") for layer in layers}
        except (OSError, ValueError):
            return None
        if any(v.shape[0] != len(occurrences) for v in vectors.values()):
            return None
        self._write_meta(key, {**meta, "last_used": time.time()})
        return CacheEntry(key, meta, occurrences, vectors)

    # -- writing -------------------------------------------------------------------------------------
    def request_bytes(self, n: int, hidden: int, layers: int) -> int:
        """Bytes a request of n occurrences x layers x hidden takes (float16 files plus the index)."""
        return n * hidden * layers * 2 + n * len(OCCURRENCE_COLUMNS) * 8 + (layers + 1) * NPY_HEADER_BYTES

    def check_request(self, request_bytes: int, at_least: bool = False) -> None:
        """Refuse one request bigger than the whole cache (``at_least``: its size so far, while counting)."""
        if request_bytes > self.cap_bytes:
            size = ("at least " if at_least else "") + format_bytes(request_bytes)
            raise WorkbenchError(
                f"these vectors would take {size} in the activation cache, over its cap "
                f"of {format_bytes(self.cap_bytes)}: choose fewer layers or words (or raise the cap)"
            )

    def ensure_room(self, key: str, request_bytes: int, new_bytes: int, keep_layers: Iterable[LayerKey]) -> None:
        """Refuse a request above the cap; else evict least recently used entries to fit ``new_bytes``.

        ``request_bytes`` is the whole request (cached and new layers), ``new_bytes`` what is about to
        be written. Layers of ``key`` outside ``keep_layers`` go last, after every other entry.
        """
        self.check_request(request_bytes)
        others = sorted((k for k in self.keys() if k != key), key=self._last_used)
        while others and self.total_bytes() + new_bytes > self.cap_bytes:
            self.evict(others.pop(0))
        if self.total_bytes() + new_bytes > self.cap_bytes:
            keep = {layer_file(layer) for layer in keep_layers}
            for path in (self.folder / key).glob("*.npy"):
                if path.name not in keep and path.name != "occurrences.npy":
                    path.unlink(missing_ok=True)
            meta = self.read_meta(key)
            if meta is not None:
                kept = [name for name in meta.get("layers", []) if layer_file(_parse(name)) in keep]
                self._write_meta(key, {**meta, "layers": kept})

    def begin_write(self, key: str, meta: dict, occurrences: np.ndarray, layers: list[LayerKey],
                    hidden: int) -> PendingWrite:
        return PendingWrite(self, key, {**meta, "version": FORMAT_VERSION, "hidden": hidden}, occurrences,
                            layers, hidden)

    # -- housekeeping --------------------------------------------------------------------------------
    def keys(self) -> list[str]:
        return [p.name for p in self.folder.iterdir() if p.is_dir()]

    def entry_bytes(self, key: str) -> int:
        return sum(p.stat().st_size for p in (self.folder / key).iterdir() if p.is_file())

    def total_bytes(self) -> int:
        return sum(self.entry_bytes(k) for k in self.keys())

    def evict(self, key: str) -> None:
        shutil.rmtree(self.folder / key, ignore_errors=True)

    def clear(self) -> None:
        for key in self.keys():
            self.evict(key)

    def _last_used(self, key: str) -> float:
        meta = self.read_meta(key)
        if meta and isinstance(meta.get("last_used"), (int, float)):
            return float(meta["last_used"])
        try:
            return (self.folder / key).stat().st_mtime
        except OSError:
            return 0.0

    def _write_meta(self, key: str, meta: dict) -> None:
        path = self.folder / key / "meta.json"
        tmp = path.with_name(f"meta.json.tmp-{_writer()}")
        try:
            tmp.write_text(json.dumps(meta), "utf-8")
            os.replace(tmp, path)
        except OSError:
            pass  # a read-only cache still serves hits


def _parse(name: Any) -> LayerKey:
    return "static" if str(name) == "static" else int(name)
