"""Checkpoints as safetensors (every tensor) plus JSON (everything else); never pickle.

A checkpoint is a folder ``step-XXXXXXXX`` inside the run's checkpoint folder:

- ``model.safetensors``: the model's state dict (tied weights stored once,
  by ``safetensors.torch.save_model``);
- ``heads.safetensors``: the extra head modules, keys ``<head>.<param>`` (if any);
- ``optimizer.safetensors``: the optimizer's per-parameter state tensors,
  keys ``state.<param index>.<name>`` (AdamW: step, exp_avg, exp_avg_sq);
- ``rng.safetensors``: torch RNG states as uint8 tensors, keys ``rank<r>.<generator>``;
- ``state.json``: step, optimizer param groups (hyper-parameters), the
  loop's JSON state (scheduler, sampler, numpy/python RNG states, losses so
  far, ...). Written last.

Writes are atomic: everything goes into a hidden ``.tmp-...`` folder that is
renamed into place, so a crash (or SIGKILL) mid-save leaves the previous
checkpoint intact and never a half-written one under a ``step-`` name; a save
that fails (a full disk, a folder made read-only) removes its ``.tmp-`` folder
and raises an ``OSError`` naming the checkpoint it could not write. Only the newest
``keep`` checkpoints stay.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from safetensors import SafetensorError
from safetensors.torch import load_file, load_model, save_file, save_model
from torch import nn

from lm_workbench.engine.errors import WorkbenchError, written
from lm_workbench.engine.training.names import STATE_FILE, checkpoint_name, latest_checkpoint, list_checkpoints

__all__ = ["FORMAT_VERSION", "STATE_FILE", "LoadedCheckpoint", "checkpoint_name", "checkpoint_step", "latest_checkpoint",
           "list_checkpoints", "load_checkpoint", "load_weights", "read_state", "save_checkpoint"]

FORMAT_VERSION = 1


def read_state(path: Path) -> dict[str, Any]:
    """A checkpoint's ``state.json``; ``WorkbenchError`` when the folder is not a checkpoint."""
    file = Path(path) / STATE_FILE
    if not file.is_file():
        raise WorkbenchError(f"{path} is not a training checkpoint (no {STATE_FILE}); pick a step-... folder")
    try:
        state = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise WorkbenchError(f"the checkpoint {path} is damaged ({STATE_FILE}: {exc})") from None
    if state.get("format") != FORMAT_VERSION:
        raise WorkbenchError(f"the checkpoint {path} has format {state.get('format')!r}; "
                             f"this version reads format {FORMAT_VERSION}")
    return state


def checkpoint_step(path: Path) -> int:
    """The number of optimizer steps done when the checkpoint was written."""
    return int(read_state(path)["step"])


# -- optimizer state <-> (tensors, JSON) -------------------------------------------------------------------------

def _split_optimizer(optimizer: torch.optim.Optimizer) -> tuple[dict[str, torch.Tensor], dict[str, Any]]:
    sd = optimizer.state_dict()
    tensors: dict[str, torch.Tensor] = {}
    other: dict[str, dict[str, Any]] = {}
    for index, entries in sd["state"].items():
        for key, value in entries.items():
            if isinstance(value, torch.Tensor):
                tensors[f"state.{index}.{key}"] = value.detach().cpu().contiguous()
            else:
                other.setdefault(str(index), {})[key] = value
    groups = [{k: (list(v) if isinstance(v, tuple) else v) for k, v in g.items()} for g in sd["param_groups"]]
    return tensors, {"param_groups": groups, "non_tensor_state": other}


def _join_optimizer(tensors: dict[str, torch.Tensor], meta: dict[str, Any]) -> dict[str, Any]:
    state: dict[int, dict[str, Any]] = {}
    for key, value in tensors.items():
        _, index, name = key.split(".", 2)
        state.setdefault(int(index), {})[name] = value
    for index, entries in meta["non_tensor_state"].items():
        state.setdefault(int(index), {}).update(entries)
    groups = [{k: (tuple(v) if k == "betas" else v) for k, v in g.items()} for g in meta["param_groups"]]
    return {"state": state, "param_groups": groups}


# -- saving ---------------------------------------------------------------------------------------------------------

def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def save_checkpoint(checkpoint_dir: Path, step: int, *, model: nn.Module, heads: dict[str, nn.Module] | None = None,
                    optimizer: torch.optim.Optimizer | None = None, state: dict[str, Any] | None = None,
                    rng_tensors: dict[str, torch.Tensor] | None = None, keep: int = 2) -> Path:
    """Write a checkpoint atomically and prune older ones; returns its folder.

    ``state`` is the caller's JSON-able state (scheduler, sampler, RNG, ...);
    ``rng_tensors`` are uint8 tensors (torch RNG states). A failed write
    removes the partial ``.tmp-`` folder (the older checkpoints stay) and
    raises an ``OSError`` that names the checkpoint folder it was to become.
    """
    folder = Path(checkpoint_dir)
    folder.mkdir(parents=True, exist_ok=True)
    final = folder / checkpoint_name(step)
    tmp = folder / f".tmp-{checkpoint_name(step)}-{os.getpid()}"
    if tmp.exists():
        shutil.rmtree(tmp)
    try:
        tmp.mkdir()
        _write_files(tmp, step, model, heads, optimizer, state, rng_tensors)
    except OSError as exc:  # named after the checkpoint it was to become: the .tmp- folder is gone
        shutil.rmtree(tmp, ignore_errors=True)
        raise OSError(exc.errno, exc.strerror, str(final)) from exc
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    old = folder / f".old-{checkpoint_name(step)}-{os.getpid()}"
    if final.exists():  # re-saving a step (e.g. cancelled right after a resume): swap, then drop the old one
        os.replace(final, old)
    os.replace(tmp, final)
    shutil.rmtree(old, ignore_errors=True)
    _prune(folder, keep)
    return final


def _write_files(tmp: Path, step: int, model: nn.Module, heads: dict[str, nn.Module] | None,
                 optimizer: torch.optim.Optimizer | None, state: dict[str, Any] | None,
                 rng_tensors: dict[str, torch.Tensor] | None) -> None:
    """Every file of a checkpoint into ``tmp``, fsynced."""
    file = tmp / "model.safetensors"
    written(file, lambda: save_model(model, str(file)))
    if heads:
        file = tmp / "heads.safetensors"
        written(file, lambda: save_model(nn.ModuleDict(heads), str(file)))
    meta: dict[str, Any] = {"format": FORMAT_VERSION, "step": int(step), "heads": sorted(heads or {})}
    if optimizer is not None:
        tensors, meta["optimizer"] = _split_optimizer(optimizer)
        file = tmp / "optimizer.safetensors"
        written(file, lambda: save_file(tensors, str(file)))
    if rng_tensors:
        file = tmp / "rng.safetensors"
        written(file, lambda: save_file({k: v.detach().cpu().to(torch.uint8).contiguous()
                                         for k, v in rng_tensors.items()}, str(file)))
    meta["loop"] = state or {}
    file = tmp / STATE_FILE
    written(file, lambda: file.write_text(json.dumps(meta, indent=1), encoding="utf-8"))
    for file in tmp.iterdir():
        written(file, lambda: _fsync(file))


def _prune(folder: Path, keep: int) -> None:
    for path in list_checkpoints(folder)[:-max(1, keep)]:
        shutil.rmtree(path, ignore_errors=True)
    for path in folder.glob(".tmp-step-*"):  # left by a crashed save
        if not path.name.endswith(f"-{os.getpid()}"):
            shutil.rmtree(path, ignore_errors=True)


# -- loading --------------------------------------------------------------------------------------------------------

@dataclass
class LoadedCheckpoint:
    path: Path
    step: int
    state: dict[str, Any]  # the caller's JSON state, as saved
    rng_tensors: dict[str, torch.Tensor] = field(default_factory=dict)


def _load_module(module: nn.Module, file: Path, what: str, device: Any) -> None:
    if not file.is_file():
        raise WorkbenchError(f"the checkpoint {file.parent} has no {file.name}")
    try:
        load_model(module, str(file), strict=True, device=str(device) if device is not None else "cpu")
    except (RuntimeError, SafetensorError, OSError) as exc:
        first = " ".join(str(exc).split())[:200]
        raise WorkbenchError(f"the checkpoint {file.parent} does not match this {what} ({first})") from None


def load_weights(path: Path, model: nn.Module, heads: dict[str, nn.Module] | None = None) -> None:
    """Load only the model (and heads) weights of a checkpoint, onto the model's current device."""
    read_state(path)
    device = next(iter(model.parameters())).device
    _load_module(model, Path(path) / "model.safetensors", "model", device)
    if heads:
        _load_module(nn.ModuleDict(heads), Path(path) / "heads.safetensors", "set of heads", device)


def load_checkpoint(path: Path, *, model: nn.Module, heads: dict[str, nn.Module] | None = None,
                    optimizer: torch.optim.Optimizer | None = None) -> LoadedCheckpoint:
    """Restore weights (and the optimizer's state) in place; returns the step, JSON state and RNG tensors."""
    path = Path(path)
    meta = read_state(path)
    saved_heads = sorted(meta.get("heads", []))
    if saved_heads != sorted(heads or {}):
        raise WorkbenchError(f"the checkpoint {path} has heads {saved_heads or 'none'}, "
                             f"this task has {sorted(heads or {}) or 'none'}")
    load_weights(path, model, heads)
    if optimizer is not None:
        if "optimizer" not in meta:
            raise WorkbenchError(f"the checkpoint {path} has no optimizer state to resume from")
        tensors = load_file(str(path / "optimizer.safetensors"))
        try:
            optimizer.load_state_dict(_join_optimizer(tensors, meta["optimizer"]))
        except (ValueError, KeyError) as exc:
            raise WorkbenchError(f"the checkpoint {path} was written for other trainable parameters ({exc})") from None
    rng_file = path / "rng.safetensors"
    rng = load_file(str(rng_file)) if rng_file.is_file() else {}
    return LoadedCheckpoint(path=path, step=int(meta["step"]), state=meta.get("loop", {}), rng_tensors=rng)
