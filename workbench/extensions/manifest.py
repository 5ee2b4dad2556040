"""A folder plugin's ``plugin.json``: read and checked without importing anything.

A folder plugin is a folder in the user's plugins folder holding
``plugin.json`` ({"name", "version", "api_version", "module", "class"}, and
optionally "kind", default "objective", and "families") and the Python file
``module`` names, which defines ``class``. ``api_version`` is a number or a
"MAJOR.MINOR" string; it is checked before anything is imported.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.models.families import Family
from lm_workbench.engine.plugin_api import BILM, parse_api_version

MANIFEST_NAME = "plugin.json"
_FIELDS = {"name": str, "version": str, "module": str, "class": str}
_OPTIONAL = {"kind": (str, "objective"), "families": (list, [])}
_FAMILIES = {f.value for f in Family} | {BILM}
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class ManifestError(WorkbenchError):
    """A plugin.json that is missing, not JSON, or lacks a field."""


@dataclass(frozen=True)
class Manifest:
    name: str
    version: str
    api_version: str | int
    families: tuple[str, ...]
    module: str  # a .py file in the plugin folder
    class_name: str
    folder: Path
    kind: str = "objective"

    @property
    def module_path(self) -> Path:
        return self.folder / self.module


def read_manifest(folder: str | Path) -> Manifest:
    """The folder's manifest; ``ManifestError`` (one line, naming the folder) when it is not usable."""
    folder = Path(folder)
    path = folder / MANIFEST_NAME
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ManifestError(f"{folder.name}: no {MANIFEST_NAME}") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ManifestError(f"{folder.name}: {MANIFEST_NAME} is not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ManifestError(f"{folder.name}: {MANIFEST_NAME} is not a JSON object")
    for key, kind in _FIELDS.items():
        value = data.get(key)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise ManifestError(f"{folder.name}: {MANIFEST_NAME} needs {key!r} as a {kind.__name__}")
    for key, (kind, default) in _OPTIONAL.items():
        data.setdefault(key, default)
        if not isinstance(data[key], kind):
            raise ManifestError(f"{folder.name}: {MANIFEST_NAME} needs {key!r} as a {kind.__name__}")
    if parse_api_version(data.get("api_version")) is None:
        raise ManifestError(f"{folder.name}: {MANIFEST_NAME} needs 'api_version' as a number or a "
                            f"\"MAJOR.MINOR\" string, not {data.get('api_version')!r}")
    if not data["name"].strip():
        raise ManifestError(f"{folder.name}: {MANIFEST_NAME} has an empty name")
    unknown = [f for f in data["families"] if f not in _FAMILIES]
    if unknown:
        raise ManifestError(f"{folder.name}: unknown families {unknown}; use {', '.join(sorted(_FAMILIES))}")
    module = data["module"]
    if Path(module).name != module or not module.endswith(".py"):
        raise ManifestError(f"{folder.name}: 'module' must be a .py file name in the plugin folder, not {module!r}")
    if not _IDENTIFIER.match(data["class"]):
        raise ManifestError(f"{folder.name}: 'class' must be a Python class name, not {data['class']!r}")
    return Manifest(name=data["name"].strip(), version=data["version"], api_version=data["api_version"],
                    families=tuple(data["families"]), module=module, class_name=data["class"], folder=folder,
                    kind=data["kind"].strip())
