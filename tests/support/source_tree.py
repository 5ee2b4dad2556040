"""The repository's four folders under their one installed import name, for the architecture tests.

The wheel installs ``workbench/`` as ``lm_workbench``, and ``engine/``, ``ui/`` and ``plugins/`` as
``lm_workbench.engine``, ``lm_workbench.ui`` and ``lm_workbench.plugins`` (setup.py). A tool that assumes
"folder = package" (grimp, import-linter) cannot follow that mapping, so ``staged_root()`` copies the Python
files once per process into a temporary tree laid out as installed, and ``import_graph()`` builds grimp's graph
of that copy. ``installed_name()`` maps a source path to its module name for tests that read files themselves.
"""

from __future__ import annotations

import contextlib
import shutil
import sys
import tempfile
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOP = "lm_workbench"
# folder -> installed package name (setup.py's FOLDERS, inverted)
FOLDERS = {"workbench": TOP, "engine": f"{TOP}.engine", "ui": f"{TOP}.ui", "plugins": f"{TOP}.plugins"}
# The old top-level names: no module may import them, or name them as a module in a string.
OLD_TOP_LEVEL = tuple(FOLDERS)


def installed_name(path: Path, root: Path = ROOT) -> str:
    """``engine/patching/sites.py`` -> ``lm_workbench.engine.patching.sites`` (``__init__`` names its package)."""
    parts = list(path.resolve().relative_to(root.resolve()).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join([FOLDERS[parts[0]], *parts[1:]])


def layer_of(module: str) -> str:
    """The folder a module lives in: ``engine``, ``ui``, ``plugins`` or ``workbench`` (the core)."""
    for folder in ("engine", "ui", "plugins"):
        name = FOLDERS[folder]
        if module == name or module.startswith(name + "."):
            return folder
    return "workbench"


def python_files(folder: str, root: Path = ROOT) -> list[Path]:
    return sorted(p for p in (root / folder).rglob("*.py") if "__pycache__" not in p.parts)


@lru_cache(maxsize=1)
def staged_root() -> Path:
    """A temporary folder holding ``lm_workbench/`` as the wheel lays it out (Python files only; made once)."""
    base = Path(tempfile.mkdtemp(prefix="lmwb-staged-"))
    for folder, name in FOLDERS.items():
        target = base.joinpath(*name.split("."))
        for path in python_files(folder):
            dest = target / path.relative_to(ROOT / folder)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, dest)
    return base


@contextlib.contextmanager
def _staged_first():
    """``lm_workbench`` found in the staged copy while grimp looks for it (the editable install's finder, and an
    already imported ``lm_workbench``, point at workbench/ alone)."""
    root = str(staged_root())
    saved = sys.modules.pop(TOP, None)
    sys.path.insert(0, root)
    try:
        yield
    finally:
        sys.path.remove(root)
        if saved is not None:
            sys.modules[TOP] = saved


@lru_cache(maxsize=4)
def import_graph(exclude_type_checking_imports: bool = False, include_external_packages: bool = False):
    """grimp's import graph of the whole installed package (from the staged copy)."""
    import grimp

    with _staged_first():
        return grimp.build_graph(TOP, cache_dir=None, include_external_packages=include_external_packages,
                                 exclude_type_checking_imports=exclude_type_checking_imports)
