"""Writing and reading workspace files (``*.lmw``: a zip of JSON members).

Reading never gives up on the whole file for one bad part: a member that is
not JSON leaves that view out, a newer format version keeps what this
version knows, and a truncated zip (its directory at the end lost) is read
member by member from the local headers. Every part left out is named in
``Workspace.problems``.
"""

from __future__ import annotations

import json
import os
import struct
import time
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lm_workbench.engine.errors import MachineFault, WorkbenchError

FORMAT = "lm-workbench-workspace"
VERSION = 1
MANIFEST = "workspace.json"
VIEWS_FOLDER = "views/"
SUFFIX = ".lmw"
MAX_MEMBER_BYTES = 50_000_000
_KNOWN = {"format", "version", "saved", "model", "text", "pair", "current_view", "preset", "model_b", "compared"}
# Model B's key: written as "model_b"; "compared" (its name before) is read as well, forever.
MODEL_B_KEYS = ("model_b", "compared")


@dataclass
class Workspace:
    model: str | None = None  # a model spec: "minilm", a hub id, "course:<family>" or a folder
    text: str = ""
    pair: str | None = None
    current_view: str | None = None
    views: dict[str, dict[str, Any]] = field(default_factory=dict)  # id -> {"settings": {...}, "inputs": {...}}
    preset: dict[str, Any] | None = None  # {"name": ..., "step": i, "definition": {...}} while a lecture runs
    model_b: str | None = None  # model B's spec (as ``model``) while two models are compared
    problems: list[str] = field(default_factory=list)  # what could not be read (when opening)


def save_workspace(workspace: Workspace, path: str | Path) -> Path:
    """Write ``workspace`` to ``path`` (a temporary file first, flushed to disk, then renamed over it: a
    crash or SIGKILL mid-save leaves the old file whole; a failed write removes the temporary one)."""
    path = Path(path)
    manifest = {"format": FORMAT, "version": VERSION, "saved": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                "model": workspace.model, "text": workspace.text, "pair": workspace.pair,
                "current_view": workspace.current_view, "preset": workspace.preset, "model_b": workspace.model_b}
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        with open(tmp, "wb") as fh:
            with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_DEFLATED) as zf:
                zf.writestr(MANIFEST, json.dumps(manifest, indent=1, ensure_ascii=False))
                for view_id, state in workspace.views.items():
                    zf.writestr(f"{VIEWS_FOLDER}{view_id}.json", json.dumps(state, indent=1, ensure_ascii=False))
            fh.flush()
            os.fsync(fh.fileno())  # on disk before it replaces the old file: a crash leaves one or the other
        tmp.replace(path)
    except OSError as exc:
        from lm_workbench.faults import describe_os_error

        tmp.unlink(missing_ok=True)
        line = describe_os_error(OSError(exc.errno, exc.strerror, str(path)))
        kept = " (the file as it was before is kept)" if path.exists() else ""
        raise MachineFault(f"the workspace was not saved{kept}: {line}") from None
    return path


def _members(path: Path, problems: list[str]) -> dict[str, bytes]:
    try:
        with zipfile.ZipFile(path) as zf:
            out = {}
            for info in zf.infolist():
                if info.file_size > MAX_MEMBER_BYTES:
                    problems.append(f"{info.filename}: too large ({info.file_size:,} bytes), left out")
                    continue
                try:
                    out[info.filename] = zf.read(info)
                except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
                    problems.append(f"{info.filename}: damaged ({exc}), left out")
            return out
    except zipfile.BadZipFile:
        problems.append("the file is damaged (its zip directory is missing or broken); "
                        "what could be read from its parts was kept")
        return _salvage(path.read_bytes())


def _salvage(data: bytes) -> dict[str, bytes]:
    """Members read from the local file headers alone (a zip cut short loses its directory at the end)."""
    out: dict[str, bytes] = {}
    pos = data.find(b"PK\x03\x04")
    while 0 <= pos and pos + 30 <= len(data):
        (_sig, _ver, flags, method, _t, _d, _crc, csize, _usize, name_len,
         extra_len) = struct.unpack("<IHHHHHIIIHH", data[pos:pos + 30])
        start = pos + 30 + name_len + extra_len
        name = data[pos + 30:pos + 30 + name_len].decode("utf-8", "replace")
        end = start + csize
        if flags & 0x08 or end > len(data):  # sizes unknown here, or cut off: nothing more can be trusted
            break
        raw = data[start:end]
        try:
            out[name] = zlib.decompress(raw, -15) if method == zipfile.ZIP_DEFLATED else raw
        except zlib.error:
            pass
        pos = data.find(b"PK\x03\x04", end)
    return out


def _json(name: str, raw: bytes, problems: list[str]) -> Any:
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        problems.append(f"{name}: not valid JSON ({exc}), left out")
        return None


def open_workspace(path: str | Path) -> Workspace:
    """Read a workspace file; what could not be read is listed in ``problems`` (never raised for a damaged
    file, only for one that is no workspace at all or cannot be read)."""
    path = Path(path)
    try:
        if not path.is_file():
            raise WorkbenchError(f"{path}: no such workspace file")
        problems: list[str] = []
        members = _members(path, problems)
    except OSError as exc:
        raise WorkbenchError(f"cannot read {path}: {exc.strerror or exc}") from None
    manifest = _json(MANIFEST, members[MANIFEST], problems) if MANIFEST in members else None
    if MANIFEST not in members:
        problems.append(f"{MANIFEST}: missing; the model, text and current view are not restored")
    if manifest is not None and (not isinstance(manifest, dict) or manifest.get("format") != FORMAT):
        if not any(n.startswith(VIEWS_FOLDER) for n in members):
            raise WorkbenchError(f"{path}: not an LM Workbench workspace")
        problems.append(f"{MANIFEST}: not a workspace manifest, left out")
        manifest = None
    ws = Workspace(problems=problems)
    if manifest is not None:
        version = manifest.get("version")
        if not isinstance(version, int) or version > VERSION:
            extra = sorted(set(manifest) - _KNOWN)
            problems.append(f"written by a newer LM Workbench (workspace version {version}; this one reads "
                            f"{VERSION}): opened what this version knows"
                            + (f"; left out: {', '.join(extra)}" if extra else ""))
        ws.model = manifest.get("model") if isinstance(manifest.get("model"), str) else None
        ws.model_b = next((manifest[k] for k in MODEL_B_KEYS if isinstance(manifest.get(k), str)), None)
        ws.text = manifest.get("text") if isinstance(manifest.get("text"), str) else ""
        ws.pair = manifest.get("pair") if isinstance(manifest.get("pair"), str) else None
        ws.current_view = manifest.get("current_view") if isinstance(manifest.get("current_view"), str) else None
        ws.preset = manifest.get("preset") if isinstance(manifest.get("preset"), dict) else None
    elif not members and not problems:
        raise WorkbenchError(f"{path}: not an LM Workbench workspace")
    for name, raw in sorted(members.items()):
        if not (name.startswith(VIEWS_FOLDER) and name.endswith(".json")):
            continue
        state = _json(name, raw, problems)
        if state is None:
            continue
        if not isinstance(state, dict) or not isinstance(state.get("settings", {}), dict):
            problems.append(f"{name}: not a view's state, left out")
            continue
        ws.views[name[len(VIEWS_FOLDER):-len(".json")]] = state
    return ws
