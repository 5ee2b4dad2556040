"""Where LM Workbench keeps its files: config, data, cache and plugins folders.

The folders come from ``platformdirs`` for the app "lm-workbench". When the
environment variable ``LM_WORKBENCH_HOME`` is set it overrides all of them:
each folder is then a subfolder of that one (tests and portable installs use
this). Every function creates its folder before returning it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

import platformdirs

APP_NAME = "lm-workbench"
HOME_ENV = "LM_WORKBENCH_HOME"


def _home() -> Path | None:
    """The override folder from ``LM_WORKBENCH_HOME``, or None when unset/empty."""
    value = os.environ.get(HOME_ENV, "").strip()
    return Path(value).expanduser() if value else None


def _folder(name: str, platform_folder: Callable[[], Path]) -> Path:
    """``LM_WORKBENCH_HOME/<name>`` when that is set, else ``platform_folder()``; created."""
    home = _home()
    path = home / name if home is not None else platform_folder()
    path.mkdir(parents=True, exist_ok=True)
    return path


def config_dir() -> Path:
    """The folder for settings.json and other user configuration."""
    return _folder("config", lambda: Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)))


def data_dir() -> Path:
    """The folder for lasting data: the run store, checkpoints, exports."""
    return _folder("data", lambda: Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)))


def cache_dir() -> Path:
    """The folder for data that can be rebuilt at will (downloads, caches)."""
    return _folder("cache", lambda: Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False)))


def plugins_dir() -> Path:
    """The folder the user drops plugin files into (inside the data folder)."""
    return _folder("plugins", lambda: data_dir() / "plugins")


def runs_db_path() -> Path:
    """The SQLite run store: ``data_dir()/runs.sqlite3`` (its folder exists)."""
    return data_dir() / "runs.sqlite3"
