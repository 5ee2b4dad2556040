"""Find objective plugins and load them, recording every failure instead of raising.

Entry-point plugins (group ``lm_workbench.objectives``, the built-in ones
included) are loaded when discovered, so a broken package shows up with its
error. Folder plugins (``workbench.paths.plugins_dir()``) are listed from
their manifests alone and imported only when their name is in
``settings.enabled_plugins``: importing runs the plugin's code. A plugin that
fails to import, declares another API version, or has a bad ``Config`` gets
status "error" with the reason; the others are unaffected.
"""

from __future__ import annotations

import importlib.util
import sys
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import Any, Iterable

from engine.families import Family
from engine.plugin_api import API_VERSION, BILM, Objective, Requirements, config_fields
from workbench.plugins.manifest import Manifest, ManifestError, read_manifest
from workbench.plugins.records import DISABLED, ENTRY_POINT, FOLDER, OK, PluginRecord, one_line

GROUP = "lm_workbench.objectives"
_FAMILIES = {f.value for f in Family} | {BILM}


def _describe(exc: BaseException) -> str:
    text = one_line(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _family_names(families: Iterable[Any]) -> list[str]:
    return sorted(getattr(f, "value", str(f)) for f in families)


def check_objective_class(cls: Any, expected_name: str) -> str | None:
    """Why ``cls`` cannot be used as the objective ``expected_name``, or None when it can."""
    if not (isinstance(cls, type) and issubclass(cls, Objective)):
        return f"{cls!r} is not a subclass of engine.plugin_api.Objective"
    if cls.api_version != API_VERSION:
        return f"written for plugin API version {cls.api_version!r}; this LM Workbench has version {API_VERSION}"
    if not isinstance(cls.name, str) or cls.name != expected_name:
        return f"its class says name {cls.name!r} but it is registered as {expected_name!r}"
    if not isinstance(cls.requires, Requirements):
        return "'requires' is not a Requirements"
    unknown = [f for f in _family_names(cls.families) if f not in _FAMILIES]
    if unknown or not cls.families:
        return f"families must be model families ({', '.join(sorted(_FAMILIES))}), not {sorted(unknown) or 'none'}"
    try:
        objective = cls()
        config_fields(cls.Config)
        objective.check_config(objective.default_config())
    except Exception as exc:  # a plugin's own code
        return f"bad config: {_describe(exc)}"
    return None


def _record_loaded(record: PluginRecord, cls: Any) -> PluginRecord:
    if isinstance(cls, type):
        record.api_version = getattr(cls, "api_version", None)
        families = getattr(cls, "families", None) or ()
        record.families = _family_names(families) if isinstance(families, (set, frozenset, list, tuple)) else []
    problem = check_objective_class(cls, record.name)
    if problem:
        return record.fail(problem)
    record.status, record.error, record.objective_class = OK, None, cls
    return record


def _load_entry_point(ep: EntryPoint) -> PluginRecord:
    dist = getattr(ep, "dist", None)
    record = PluginRecord(name=ep.name, source=ENTRY_POINT, status=OK,
                          version=str(getattr(dist, "version", "") or ""), location=ep.value)
    try:
        cls = ep.load()
    except (Exception, SystemExit) as exc:  # anything a third-party import can raise
        return record.fail(f"cannot import {ep.value}: {_describe(exc)}")
    return _record_loaded(record, cls)


def entry_point_records() -> list[PluginRecord]:
    """Every objective registered under the entry-point group, loaded, sorted by name."""
    found = sorted(entry_points(group=GROUP), key=lambda ep: (ep.name, ep.value))
    return [_load_entry_point(ep) for ep in found]


def plugin_folders(root: Path) -> list[Path]:
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))


def _manifest_record(folder: Path) -> tuple[PluginRecord, Manifest | None]:
    try:
        manifest = read_manifest(folder)
    except ManifestError as exc:
        return PluginRecord(name=folder.name, source=FOLDER, status=OK, location=str(folder)).fail(str(exc)), None
    record = PluginRecord(name=manifest.name, source=FOLDER, status=DISABLED, version=manifest.version,
                          api_version=manifest.api_version, families=sorted(manifest.families), location=str(folder))
    if manifest.api_version != API_VERSION:
        record.fail(f"written for plugin API version {manifest.api_version}; this LM Workbench has version "
                    f"{API_VERSION}")
    return record, manifest


def list_folder_plugins(root: Path) -> list[PluginRecord]:
    """Folder plugins from their manifests only: nothing is imported (status disabled or error)."""
    return [_manifest_record(folder)[0] for folder in plugin_folders(root)]


def import_folder_plugin(manifest: Manifest) -> Any:
    """Import the manifest's module file and return its class (exceptions propagate)."""
    path = manifest.module_path
    if not path.is_file():
        raise FileNotFoundError(f"{manifest.module} is not in {manifest.folder}")
    module_name = "lm_workbench_user_plugin_" + "".join(c if c.isalnum() else "_" for c in manifest.folder.name)
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses and typing look their module up here
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(module_name, None)
        raise
    if not hasattr(module, manifest.class_name):
        raise ImportError(f"{manifest.module} defines no class {manifest.class_name!r}")
    return getattr(module, manifest.class_name)


def folder_records(root: Path, enabled: Iterable[str]) -> list[PluginRecord]:
    """Folder plugins; those named in ``enabled`` (and with a good manifest) are imported and checked."""
    enabled_names = {name for name in enabled if isinstance(name, str)}
    records = []
    for folder in plugin_folders(root):
        record, manifest = _manifest_record(folder)
        if manifest is not None and record.status == DISABLED and record.name in enabled_names:
            try:
                cls = import_folder_plugin(manifest)
            except (Exception, SystemExit) as exc:
                record.fail(f"cannot import {manifest.module}: {_describe(exc)}")
            else:
                _record_loaded(record, cls)
                record.families = record.families or sorted(manifest.families)
        records.append(record)
    return records


def discover(settings: Any = None, root: Path | None = None) -> list[PluginRecord]:
    """Entry-point plugins, then folder plugins; a name already taken makes the later one an error."""
    if root is None:
        from workbench.paths import plugins_dir

        root = plugins_dir()
    enabled = getattr(settings, "enabled_plugins", None)
    records = entry_point_records() + folder_records(root, enabled if isinstance(enabled, list) else [])
    seen: dict[str, PluginRecord] = {}
    for record in records:
        first = seen.get(record.name)
        if first is None:
            seen[record.name] = record
        else:
            record.fail(f"the name {record.name!r} is already taken by the {first.source} plugin at {first.location}")
    return records
