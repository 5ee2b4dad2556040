"""Resolve what the user typed into a local model folder.

A spec is one of: the built-in default (``minilm``), a local folder, or a hub
id (``org/name``) found in the Hugging Face cache or downloaded.

A local folder is a model when it holds ``config.json`` (a transformers
model folder, or the workbench's own ELMo folder), a published AllenNLP ELMo
(one ``*options.json`` and one ``*.hdf5``), or when it is a run folder: a folder without ``config.json``
of its own whose ``model/`` subfolder is a model folder. That subfolder is
where a training run saves its result (``lm-workbench pretrain --out DIR``
writes ``DIR/model``; fine-tuning runs follow the same rule), so a run's
folder opens as the model it made. A run folder with no ``model/`` yet (a
run that did not finish) fails with a message that says so. Offline, an
id that is not cached fails at once, naming the id and the cache folder; the
hub client reads ``HF_HUB_OFFLINE`` only when it is first imported, so we also
pass ``local_files_only=True`` ourselves.

``resolve_job`` is the one place that decides whether opening a model
downloads it: a job generator whose download reports its size and progress
(the window's and the CLI's load job relay them); ``resolve_model`` runs it
without reports.
"""

from __future__ import annotations

import os
import re
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generator
from urllib.parse import urlparse

from lm_workbench.engine.errors import ModelFormatError, ModelNotFoundError
from lm_workbench.engine.models.default import DEFAULT_MODEL_NAMES, default_model_folder
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, drive

_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.\-]*(/[\w.\-]+)?$")
# The subfolder of a training run's folder that holds its model (see the module docstring).
RUN_MODEL_FOLDER = "model"
# What marks a folder as a training run's even before it has a model.
_RUN_MARKERS = ("summary.json", "checkpoints")


@dataclass(frozen=True)
class ResolvedSource:
    spec: str  # what the user typed
    folder: Path
    kind: str  # "default", "folder", "cache", "hub"


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in {"1", "true", "yes", "on"}


def is_offline() -> bool:
    return _truthy(os.environ.get("HF_HUB_OFFLINE")) or _truthy(os.environ.get("TRANSFORMERS_OFFLINE"))


def hub_cache_dir() -> Path:
    from huggingface_hub import constants

    return Path(constants.HF_HUB_CACHE)


def _hub_reachable(timeout: float = 2.0) -> bool:
    from huggingface_hub import constants

    url = urlparse(constants.ENDPOINT)
    host, port = url.hostname or "huggingface.co", url.port or (443 if url.scheme == "https" else 80)
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def looks_like_path(spec: str) -> bool:
    """A spec that can only be a path (hub ids are ``name`` or ``org/name``)."""
    return (
        spec.startswith((".", "/", "~", "\\"))
        or bool(re.match(r"^[A-Za-z]:[\\/]", spec))
        or "\\" in spec
        or spec.count("/") > 1
        or not _HUB_ID.match(spec)
    )


def resolve_job(spec: str, *, allow_pickle: bool = False,
                  cancel: CancelToken = NEVER_CANCELLED) -> Generator[Any, None, ResolvedSource]:
    """Resolve ``spec`` to a local folder: the one place that decides whether opening a model downloads.

    A job generator: the default, a folder or a cached hub id yields nothing; a hub id that is not in the cache
    is downloaded (``lm_workbench.engine.models.download``: it yields the ``DownloadPlan``, then ``Progress`` in bytes, and
    stops at ``cancel``) unless offline mode is on or the hub cannot be reached, which fails in one line.
    Returns the ``ResolvedSource`` (its ``kind`` is "hub" when this call downloaded it).
    """
    spec = (spec or "").strip()
    if not spec:
        raise ModelNotFoundError("no model given: name a folder, a hub id, or 'minilm'")
    if spec.lower() in DEFAULT_MODEL_NAMES:
        return ResolvedSource(spec, default_model_folder(), "default")
    path = Path(spec).expanduser()
    if path.exists() or looks_like_path(spec):
        return ResolvedSource(spec, _check_folder(path), "folder")
    folder = cached_snapshot(spec)
    if folder is not None:
        return ResolvedSource(spec, folder, "cache")
    if is_offline() or not _hub_reachable():
        reason = "offline mode is on" if is_offline() else "the hub cannot be reached"
        raise ModelNotFoundError(
            f"model {spec!r} is not in the cache ({hub_cache_dir()}) and {reason}; "
            "open a local folder or use 'minilm'"
        )
    from lm_workbench.engine.models.download import download_job

    folder = yield from download_job(spec, allow_pickle=allow_pickle, cancel=cancel)
    return ResolvedSource(spec, _check_folder(folder), "hub")


def resolve_model(spec: str, *, allow_pickle: bool = False) -> ResolvedSource:
    """``resolve_job`` run to its end: a download it needs happens without reports."""
    return drive(resolve_job(spec, allow_pickle=allow_pickle))


def _check_folder(path: Path) -> Path:
    if not path.exists():
        raise ModelNotFoundError(f"model folder {path} does not exist")
    if not path.is_dir():
        raise ModelFormatError(f"{path} is a file; open the folder that holds config.json")
    if (path / "config.json").is_file():
        return path.resolve()
    from lm_workbench.engine.elmo.checkpoint import is_elmo_folder

    if is_elmo_folder(path):  # a published AllenNLP ELMo: *options.json + *.hdf5, no config.json
        return path.resolve()
    if (path / RUN_MODEL_FOLDER / "config.json").is_file():  # a training run's folder
        return (path / RUN_MODEL_FOLDER).resolve()
    if (path / "finetune.json").is_file():  # a fine-tuning run's folder: a whole model when it trained every weight
        if (path / "adapter" / "config.json").is_file():
            return (path / "adapter").resolve()
        raise ModelFormatError(
            f"{path} is a fine-tuning run whose method saved only what it trained (adapter/ has no config.json): "
            "a LoRA run opens after 'lm-workbench finetune-merge'; 'generate --chat' and 'predict' open any run")
    if any((path / marker).exists() for marker in _RUN_MARKERS):
        raise ModelFormatError(
            f"{path} is a training run's folder with no model in it yet ({RUN_MODEL_FOLDER}/config.json is "
            "missing): the run has not finished; resume it, or open another folder"
        )
    raise ModelFormatError(
        f"{path} has no config.json: it is not a transformers model folder, nor a run folder with "
        f"{RUN_MODEL_FOLDER}/config.json"
    )


def cached_snapshot(repo_id: str, revision: str | None = None) -> Path | None:
    """The complete snapshot of ``repo_id`` in the hub cache (config and weights), or None."""
    from huggingface_hub import snapshot_download

    from lm_workbench.engine.models.download import snapshot_is_complete

    try:
        folder = Path(snapshot_download(repo_id, revision=revision, local_files_only=True))
    except Exception:  # not cached (LocalEntryNotFoundError), a bad id (HFValidationError), an unreadable cache
        return None
    return folder if snapshot_is_complete(folder) else None
