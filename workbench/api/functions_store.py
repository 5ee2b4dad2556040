"""``lm_workbench``'s store commands (those that read no model or more than one).

Generated (``lm_workbench.api.model_methods`` says how); do not edit by hand."""

from __future__ import annotations

from typing import Any

from lm_workbench import requests as _requests
from lm_workbench.api.runner import call as _call


def compare(
        model_a: str,
        model_b: str,
        *,
        text: tuple[str, ...],
        device: str | None = None,
        precision: str | None = None,
        offline: bool | None = None,
) -> Any:
    """``lm-workbench compare``: how alike two models' layers are on the same words: layer x layer CKA."""
    return _call(_requests.CompareRequest, locals())


def runs(
        *,
        kind: str | None = None,
) -> Any:
    """``lm-workbench runs list``: every run, newest first, with its final metrics."""
    return _call(_requests.RunsListRequest, locals())


def runs_diff(
        a: int,
        b: int,
        *,
        all: bool = False,
) -> Any:
    """``lm-workbench runs diff``: two runs" settings side by side, the differences marked."""
    return _call(_requests.RunsDiffRequest, locals())


def download(
        repo_id: str,
        *,
        revision: str | None = None,
        allow_pickle: bool | None = None,
) -> Any:
    """``lm-workbench download``: fetch a hub model into the cache without loading it (size, progress, resume)."""
    return _call(_requests.DownloadRequest, locals())


def presets(
        *,
        file: tuple[str, ...] = (),
) -> Any:
    """``lm-workbench presets list``: the built-in presets (and --file ones) with their availability."""
    return _call(_requests.PresetsListRequest, locals())


def presets_check(
        file: str,
) -> Any:
    """``lm-workbench presets check``: validate a preset file and say whether it can be shown here."""
    return _call(_requests.PresetsCheckRequest, locals())


def presets_verify(
        presets: tuple[str, ...],
) -> Any:
    """``lm-workbench presets verify``: evaluate the presets' claims on the models they name: holds / fails /
    cannot run, with the numbers."""
    return _call(_requests.PresetsVerifyRequest, locals())


def plugins() -> Any:
    """``lm-workbench plugins list``: every plugin with its source, status and error."""
    return _call(_requests.PluginsListRequest, locals())


def gui(
        model: str | None = None,
) -> Any:
    """``lm-workbench gui``: open the window (the default with no command)."""
    return _call(_requests.GuiRequest, locals())


__all__ = [
    "compare",
    "runs",
    "runs_diff",
    "download",
    "presets",
    "presets_check",
    "presets_verify",
    "plugins",
    "gui",
]
