"""The package list for setuptools: the repository's four top-level folders installed under one import name.

``workbench/`` is ``lm_workbench``; ``engine/``, ``ui/`` and ``plugins/`` are ``lm_workbench.engine``,
``lm_workbench.ui`` and ``lm_workbench.plugins``. Everything else (metadata, dependencies, entry points, package
data) is in pyproject.toml. setuptools' ``packages.find`` cannot rename a folder, hence this file.
"""

from __future__ import annotations

from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).resolve().parent

# Import name -> folder (relative to the repository). The first entry is the one top-level package.
FOLDERS = {
    "lm_workbench": "workbench",
    "lm_workbench.engine": "engine",
    "lm_workbench.ui": "ui",
    "lm_workbench.plugins": "plugins",
}


def mapped_packages(root: Path = ROOT) -> list[str]:
    """Every folder under the four (packages, and the data folders beside them, as setuptools' namespace discovery
    counts them), by its installed name, sorted."""
    names = []
    for name, folder in FOLDERS.items():
        base = root / folder
        for path in [base, *base.rglob("*")]:
            if path.is_dir() and "__pycache__" not in path.parts and not path.name.endswith(".egg-info"):
                names.append(".".join((name, *path.relative_to(base).parts)))
    return sorted(names)


if __name__ == "__main__":
    setup(packages=mapped_packages(), package_dir=dict(FOLDERS))
