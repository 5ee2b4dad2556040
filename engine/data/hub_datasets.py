"""Datasets by name: a split of a Hugging Face ``datasets`` dataset already in the local cache, as a table.

``glue/sst2:validation`` names the dataset ``glue``, its configuration ``sst2``
and the split ``validation`` (``nyu-mll/glue/sst2:validation`` with the hub
namespace; ``imdb:test`` for a dataset with one configuration; a slice such as
``validation[:200]`` works too). The split is read from the cache folder that
``datasets.load_dataset`` left (``HF_DATASETS_CACHE``, else
``$HF_HOME/datasets``, else ``~/.cache/huggingface/datasets``), never from the
network: preparing a machine means loading the dataset once with a network.

The rows come back as a ``Table`` of the one table reader (row ``i`` counts as
line ``i + 1`` in reports), so every command and view reads a dataset exactly
as it reads a file. A class-label column gives its label names, not numbers.
Without the optional ``datasets`` package a one-line message says how to
install it.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from lm_workbench.engine.data.rows import ReadReport, Row, Table, cell_text
from lm_workbench.engine.errors import WorkbenchError

INSTALL_HINT = "install the optional datasets package: pip install 'lm-workbench[datasets]' (or pip install datasets)"
_REFERENCE = re.compile(r"^(?P<name>[A-Za-z0-9][\w.-]*(?:/[\w.-]+){0,2}):(?P<split>[A-Za-z_][\w.\[\]:%+-]*)$")


@dataclass(frozen=True)
class DatasetRef:
    name: str  # "glue" or "nyu-mll/glue"
    config: str | None
    split: str  # "validation", "train[:100]"

    def __str__(self) -> str:
        return f"{self.name}{'/' + self.config if self.config else ''}:{self.split}"


@dataclass(frozen=True)
class CachedDataset:
    """One configuration of a dataset in the cache and its splits (with row counts when known)."""

    name: str
    config: str
    splits: dict[str, int | None]
    folder: Path

    def reference(self, split: str) -> str:
        return f"{self.name}/{self.config}:{split}"


def datasets_cache() -> Path:
    """Where ``datasets`` keeps prepared datasets (read from the environment at each call)."""
    if os.environ.get("HF_DATASETS_CACHE"):
        return Path(os.environ["HF_DATASETS_CACHE"]).expanduser()
    home = os.environ.get("HF_HOME") or os.path.join(os.environ.get("XDG_CACHE_HOME", "~/.cache"), "huggingface")
    return Path(home).expanduser() / "datasets"


def looks_like_dataset(text: str) -> bool:
    """Whether ``text`` is a dataset reference (``name[/config]:split``) rather than a file that exists."""
    text = str(text)
    return bool(_REFERENCE.match(text)) and not Path(text).exists() and not re.match(r"^[A-Za-z]:[\\/]", text)


def _folder_name(name: str) -> str:
    parts = name.split("/")
    parts[-1] = re.sub(r"(?<!^)(?=[A-Z])", "_", parts[-1]).lower() if parts[-1] != parts[-1].lower() else parts[-1]
    return "___".join(parts)


def cached_datasets(cache: Path | None = None) -> list[CachedDataset]:
    """Every dataset configuration prepared in the cache, newest version of each, sorted by name."""
    cache = cache or datasets_cache()
    found: dict[tuple[str, str], CachedDataset] = {}
    for info in sorted(cache.glob("*/*/*/*/dataset_info.json"), key=lambda p: p.stat().st_mtime):
        folder = info.parent
        config, dataset_dir = folder.parts[-3], folder.parts[-4]
        if dataset_dir.startswith(("downloads", "_")) or "-" in config and len(config.rsplit("-", 1)[-1]) == 16:
            continue  # downloads, locks, and configurations made from local files (their id ends in a hash)
        try:
            meta = json.loads(info.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        splits = {s: (v or {}).get("num_examples") for s, v in (meta.get("splits") or {}).items()}
        name = dataset_dir.replace("___", "/")
        found[(name, config)] = CachedDataset(name, config, splits, folder)
    return sorted(found.values(), key=lambda d: (d.name, d.config))


def parse_reference(text: str, cache: Path | None = None) -> DatasetRef:
    """``glue/sst2:validation`` -> (glue, sst2, validation); ``a/b:split`` is the namespaced dataset ``a/b``
    when the cache holds it, else dataset ``a`` with configuration ``b``."""
    m = _REFERENCE.match(str(text))
    if not m:
        raise WorkbenchError(f"{text!r} is not a dataset reference: write name/configuration:split, "
                             f"e.g. glue/sst2:validation")
    parts, split = m["name"].split("/"), m["split"]
    cache = cache or datasets_cache()
    if len(parts) == 3:
        return DatasetRef("/".join(parts[:2]), parts[2], split)
    if len(parts) == 2 and (cache / _folder_name("/".join(parts))).is_dir():
        return DatasetRef("/".join(parts), None, split)
    if len(parts) == 2:
        return DatasetRef(parts[0], parts[1], split)
    return DatasetRef(parts[0], None, split)


def _find(ref: DatasetRef, cache: Path) -> CachedDataset:
    known = cached_datasets(cache)
    wanted = [d for d in known if d.name == ref.name or d.name.split("/")[-1] == ref.name]
    if ref.config:
        matching = [d for d in wanted if d.config == ref.config]
    else:
        matching = wanted if len({d.config for d in wanted}) == 1 else []
    if matching:
        return matching[-1]
    if wanted:
        configs = ", ".join(sorted({d.config for d in wanted}))
        raise WorkbenchError(f"{ref}: the cache holds {ref.name} with the configuration(s) {configs}; "
                             f"name one, e.g. {ref.name}/{wanted[0].config}:{ref.split}")
    raise WorkbenchError(f"{ref}: not in the local datasets cache ({cache}); load it once with a network "
                         f"(python -c \"import datasets; datasets.load_dataset('{ref.name}'"
                         f"{', ' + repr(ref.config) if ref.config else ''})\") and try again")


def dataset_columns(text: str, cache: Path | None = None) -> list[str]:
    """The columns of the dataset ``text`` names, from its ``dataset_info.json`` ([] when it is not found)."""
    cache = cache or datasets_cache()
    try:
        found = _find(parse_reference(text, cache), cache)
        meta = json.loads((found.folder / "dataset_info.json").read_text(encoding="utf-8"))
    except (WorkbenchError, OSError, ValueError):
        return []
    return [str(name) for name in (meta.get("features") or {})]


def dataset_table(text: str, cache: Path | None = None) -> Table:
    """The split ``text`` names, read from the cache (no network), as a ``Table``."""
    try:
        from datasets.packaged_modules.cache.cache import Cache
    except ImportError:
        raise WorkbenchError(f"reading {text} from the datasets cache needs the datasets package: "
                             f"{INSTALL_HINT}") from None
    cache = cache or datasets_cache()
    ref = parse_reference(text, cache)
    found = _find(ref, cache)
    base = ref.split.split("[", 1)[0]
    if found.splits and base not in found.splits:
        raise WorkbenchError(f"{ref}: {found.name}/{found.config} has the split(s) {', '.join(found.splits)}, "
                             f"not {base!r}")
    version, digest = found.folder.parts[-2:]
    builder = Cache(cache_dir=str(cache), dataset_name=found.name.split("/")[-1], repo_id=found.name,
                    config_name=found.config, version=version, hash=digest)
    try:
        split = builder.as_dataset(split=ref.split)
    except (ValueError, FileNotFoundError, KeyError) as exc:
        raise WorkbenchError(f"{ref}: cannot read it from the cache ({exc})") from None
    return _as_table(split, str(ref))


def _as_table(split, source: str) -> Table:
    header = list(split.column_names)
    names = {c: f.names for c, f in split.features.items() if hasattr(f, "names") and hasattr(f, "int2str")}
    rows = []
    unlabeled = 0
    for i, record in enumerate(split):
        cells = {}
        for column in header:
            value = record.get(column)
            if column in names and isinstance(value, int):
                if 0 <= value < len(names[column]):
                    value = names[column][value]
                else:  # -1: no label (a GLUE test split)
                    value, unlabeled = "", unlabeled + 1
            cells[column] = cell_text(value)
        rows.append(Row(i + 1, cells))
    report = ReadReport(source, rows_read=len(rows))
    if unlabeled:
        report.note(f"{unlabeled} class label(s) are -1, i.e. missing (an unlabeled split, such as a test split)")
    return Table(header, rows, report, "dataset")
