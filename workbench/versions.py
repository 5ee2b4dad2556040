"""The versions of what the workbench stands on, and the releases known to break one of its features.

pyproject's ranges say what pip may install; a user's environment (a notebook's, one pip upgraded later) can
still hold a release that breaks a feature. ``KNOWN_BREAKS`` names each such release with the feature it
breaks; a feature checks the table when it starts (``refuse_known_breaks``) and refuses in one line naming
the package, the version and what to install, instead of a traceback or a silently wrong number.
``lm-workbench --self-test`` lists the versions found and flags any known-bad one.

Add an entry only for a break that remains (the workbench cannot work around it), with the same bound in
pyproject and a one-line comment there.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from importlib import metadata

from lm_workbench.engine.errors import WorkbenchError

# what --self-test lists: the stack the views, training and the window stand on
KEY_PACKAGES = ("torch", "transformers", "peft", "tokenizers", "huggingface-hub", "safetensors",
                "sentence-transformers", "numpy", "scikit-learn", "umap-learn", "PySide6-Essentials", "pyqtgraph")
EVERY_FEATURE = "*"


@dataclass(frozen=True)
class KnownBreak:
    """``package`` at ``versions`` (a PEP 440 specifier set; only under ``python`` when given) breaks
    ``feature`` ("window", "finetune", "finetune:prefix", "pretrain", or ``EVERY_FEATURE``)."""

    package: str
    versions: str
    feature: str
    what: str  # what breaks, in a few words
    install: str  # what to install instead
    python: str | None = None

    def applies_to(self, feature: str) -> bool:
        return self.feature in (EVERY_FEATURE, feature) or feature.startswith(self.feature + ":")

    def matches(self, version: str, python_version: str) -> bool:
        from packaging.specifiers import SpecifierSet

        if self.python is not None and python_version not in SpecifierSet(self.python):
            return False
        return version in SpecifierSet(self.versions, prereleases=True)

    def message(self, version: str) -> str:
        where = f" under Python {self.python}" if self.python else ""
        return (f"{self.package} {version} is known to break {self.what}{where}; install another release: "
                f"{self.install}")


KNOWN_BREAKS: tuple[KnownBreak, ...] = (
    # pyproject excludes it too; an environment made before (or by another tool) may still hold it
    KnownBreak("PySide6-Essentials", "==6.12.0", "window",
               "the window (its wheels lose a reference to None on every void call and abort the interpreter "
               "after about 10^5 calls)", "pip install 'PySide6-Essentials!=6.12.0'", python="<3.12"),
)


def installed_version(package: str) -> str | None:
    """The installed distribution's version, or None when it is not installed."""
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def found_versions(packages: tuple[str, ...] = KEY_PACKAGES) -> dict[str, str | None]:
    return {package: installed_version(package) for package in packages}


def _python_version() -> str:
    return ".".join(str(part) for part in sys.version_info[:3])


def breaks_in_force(feature: str | None = None, versions: dict[str, str | None] | None = None,
                    table: tuple[KnownBreak, ...] | None = None) -> list[tuple[KnownBreak, str]]:
    """(entry, installed version) for every known break the installed versions hit (of ``feature`` only when
    given). ``versions`` and ``table`` default to what is installed and ``KNOWN_BREAKS``."""
    found: list[tuple[KnownBreak, str]] = []
    for entry in KNOWN_BREAKS if table is None else table:
        if feature is not None and not entry.applies_to(feature):
            continue
        version = versions.get(entry.package) if versions is not None else installed_version(entry.package)
        if version is not None and entry.matches(version, _python_version()):
            found.append((entry, version))
    return found


def refuse_known_breaks(feature: str, **kwargs) -> None:
    """Raise a one-line ``WorkbenchError`` when an installed release is known to break ``feature``."""
    hits = breaks_in_force(feature, **kwargs)
    if hits:
        entry, version = hits[0]
        raise WorkbenchError(entry.message(version))
