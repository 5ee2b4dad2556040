"""Reading weight files without loading them: safetensors headers.

A safetensors file is an 8-byte little-endian header length, a JSON header
(name -> dtype, shape, data_offsets) and the raw data. Reading the header is
cheap for any file size, gives the exact parameter bytes, and detects a
truncated or corrupt file before ``transformers`` tries to load it.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass
from pathlib import Path

from lm_workbench.engine.errors import ModelFormatError

DTYPE_BYTES = {
    "F64": 8, "F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4, "I16": 2, "I8": 1,
    "U8": 1, "BOOL": 1, "F8_E4M3": 1, "F8_E5M2": 1, "U16": 2, "U32": 4, "U64": 8,
}
_MAX_HEADER = 100 * 1024 * 1024


@dataclass(frozen=True)
class TensorEntry:
    name: str
    dtype: str
    shape: tuple[int, ...]

    @property
    def numel(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n


def read_safetensors_header(path: Path) -> tuple[list[TensorEntry], bytes]:
    """Entries of one file and its raw header bytes; raises ModelFormatError if corrupt."""
    path = Path(path)
    size = path.stat().st_size
    try:
        with path.open("rb") as f:
            prefix = f.read(8)
            if len(prefix) != 8:
                raise ValueError("file shorter than its 8-byte header length")
            (n,) = struct.unpack("<Q", prefix)
            if n <= 0 or n > _MAX_HEADER or 8 + n > size:
                raise ValueError("header length does not fit the file")
            raw = f.read(n)
        header = json.loads(raw.decode("utf-8"))
        if not isinstance(header, dict):
            raise ValueError("header is not a JSON object")
        entries = []
        data_end = 0
        for name, meta in header.items():
            if name == "__metadata__":
                continue
            dtype, shape, (start, end) = meta["dtype"], tuple(meta["shape"]), meta["data_offsets"]
            entry = TensorEntry(name, dtype, shape)
            if end - start != entry.numel * DTYPE_BYTES.get(dtype, 1):
                raise ValueError(f"tensor {name} has a size that does not match its shape")
            data_end = max(data_end, end)
            entries.append(entry)
        if 8 + n + data_end > size:
            raise ValueError(f"file is truncated: {size} bytes, header promises {8 + n + data_end}")
    except (ValueError, KeyError, TypeError, UnicodeDecodeError, struct.error) as exc:
        raise ModelFormatError(f"corrupt weights file {path.name}: {exc}") from None
    return entries, raw


def safetensors_files(folder: Path) -> list[Path]:
    """The folder's safetensors files (all shards when an index names them)."""
    folder = Path(folder)
    index = folder / "model.safetensors.index.json"
    if index.is_file():
        try:
            weight_map = json.loads(index.read_text("utf-8"))["weight_map"]
        except (ValueError, KeyError) as exc:
            raise ModelFormatError(f"corrupt weights index {index.name}: {exc}") from None
        return [folder / name for name in sorted(set(weight_map.values()))]
    return sorted(folder.glob("*.safetensors"))


def pickle_weight_files(folder: Path) -> list[Path]:
    folder = Path(folder)
    return sorted(list(folder.glob("pytorch_model*.bin")) + list(folder.glob("*.pt")))


def weight_entries(folder: Path) -> list[TensorEntry]:
    """All tensor entries of a folder's safetensors weights (validates every header)."""
    entries: list[TensorEntry] = []
    for path in safetensors_files(folder):
        if not path.is_file():
            raise ModelFormatError(f"weights shard {path.name} is missing")
        entries.extend(read_safetensors_header(path)[0])
    return entries
