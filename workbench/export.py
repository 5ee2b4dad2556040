"""Exporting what a view shows: CSV and NumPy files, TSV text for the clipboard,
and safe file-name suggestions. (Picture export of widgets lives in ``ui``.)

A table is either a list of dicts (the header is the union of their keys, in
first-seen order) or a ``(header, rows)`` pair with rows as sequences.
"""

from __future__ import annotations

import csv
import os
import re
import tempfile
import time
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence, Union

import numpy as np

Table = Union[Sequence[Mapping[str, Any]], tuple[Sequence[str], Iterable[Sequence[Any]]]]

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def normalize_table(table: Table) -> tuple[list[str], list[list[Any]]]:
    """A table as ``(header, rows)``; dict rows are aligned on the header ("" if missing)."""
    if isinstance(table, tuple) and len(table) == 2 and not isinstance(table[0], Mapping):
        header, rows = table
        return [str(h) for h in header], [list(r) for r in rows]
    records = list(table)
    header: list[str] = []
    seen: set[str] = set()
    for rec in records:
        if not isinstance(rec, Mapping):
            raise TypeError("a table is a list of dicts or a (header, rows) pair")
        for key in rec:
            if key not in seen:
                seen.add(key)
                header.append(key)
    return list(map(str, header)), [[rec.get(h, "") for h in header] for rec in records]


def _cell(value: Any) -> Any:
    """A value as it should appear in a text cell (NumPy scalars unwrapped)."""
    if isinstance(value, np.generic):
        return value.item()
    return "" if value is None else value


def _atomic_write(path: Path, write) -> Path:
    """Write through a temporary file in the same folder, then rename into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def export_csv(path: str | Path, table: Table) -> Path:
    """Write the table as UTF-8 CSV with a header row; return the path."""
    header, rows = normalize_table(table)

    def write(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(header)
            for row in rows:
                writer.writerow([_cell(v) for v in row])

    return _atomic_write(Path(path), write)


def export_npy(path: str | Path, array: Any) -> Path:
    """Save an array (NumPy, or anything ``np.asarray`` takes, e.g. a CPU tensor) as .npy."""
    path = Path(path)
    if path.suffix != ".npy":
        path = path.with_name(path.name + ".npy")  # np.save would append it anyway
    data = np.asarray(array)
    if data.dtype == object:
        raise TypeError("export_npy needs a numeric array, not Python objects")

    def write(tmp: str) -> None:
        with open(tmp, "wb") as fh:
            np.save(fh, data, allow_pickle=False)

    return _atomic_write(path, write)


def table_to_tsv(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """Tab-separated text for the clipboard (spreadsheets paste it as cells).

    Tabs and line breaks inside a cell become spaces; lines end with "\\n".
    """

    def clean(value: Any) -> str:
        return re.sub(r"[\t\r\n]+", " ", str(_cell(value)))

    lines = ["\t".join(clean(h) for h in header)]
    lines += ["\t".join(clean(v) for v in row) for row in rows]
    return "\n".join(lines) + "\n"


def suggest_filename(view: str, model: str, ext: str, *, when: float | None = None) -> str:
    """A safe file name like ``attention_bert-base-uncased_20250101-120000.csv``.

    Only letters, digits, ``.``, ``_`` and ``-`` survive; of a hub id
    (``org/name``) or a folder path only the last part is kept.
    """
    model = re.split(r"[\\/]", str(model).rstrip("/\\"))[-1]
    parts = [_UNSAFE.sub("-", s).strip("-._") for s in (view, model)]
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(when))
    stem = "_".join(p for p in parts if p) or "export"
    ext = _UNSAFE.sub("", ext.lstrip(".")) or "dat"
    return f"{stem[:120]}_{stamp}.{ext}"
