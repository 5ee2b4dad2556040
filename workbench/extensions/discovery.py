"""Find plugins of every extension kind and load them, recording every failure instead of raising.

Entry-point plugins (each kind's group, e.g. ``lm_workbench.objectives``, the
built-in ones included) are loaded when discovered, so a broken package
shows up with its error. Folder plugins (``lm_workbench.paths.plugins_dir()``)
are listed from their manifests alone and imported only when their name is
in ``settings.enabled_plugins``: importing runs the plugin's code. A plugin
that fails to import, declares an incompatible API version (a folder
plugin's manifest is checked before any import), is not a valid contribution
of its kind, or names an unknown kind gets status "error" with the reason;
the others are unaffected.
"""

from __future__ import annotations

import importlib.util
import sys
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import Any, Iterable

from lm_workbench.engine.plugin_api import api_version_problem
from lm_workbench.extensions.extension_kind import ExtensionKind
from lm_workbench.extensions.kinds import KINDS, kind_named
from lm_workbench.extensions.manifest import Manifest, ManifestError, read_manifest
from lm_workbench.extensions.records import (
    DISABLED, ENTRY_POINT, FOLDER, OK, PluginRecord, describe_exception,
)


def _record_loaded(record: PluginRecord, cls: Any, kind: ExtensionKind) -> PluginRecord:
    try:  # the kind's checks read the plugin's attributes, which may be anything
        if isinstance(cls, type):
            declared = getattr(cls, "api_version", None)
            record.api_version = declared if declared is not None else record.api_version
            record.families = kind.families(cls) or record.families
        problem = kind.problem(cls, record.name)
    except Exception as exc:
        problem = f"is not a valid {kind.name}: {describe_exception(exc)}"
    if problem:
        return record.fail(problem)
    record.status, record.error, record.plugin_class = OK, None, cls
    return record


def _load_entry_point(ep: EntryPoint, kind: ExtensionKind) -> PluginRecord:
    dist = getattr(ep, "dist", None)
    record = PluginRecord(name=ep.name, source=ENTRY_POINT, status=OK, kind=kind.name,
                          version=str(getattr(dist, "version", "") or ""), location=ep.value)
    try:
        cls = ep.load()
    except (Exception, SystemExit) as exc:  # anything a third-party import can raise
        return record.fail(f"cannot import {ep.value}: {describe_exception(exc)}")
    return _record_loaded(record, cls, kind)


def entry_point_records(kinds: tuple[ExtensionKind, ...] = KINDS) -> list[PluginRecord]:
    """Every plugin registered under the kinds' entry-point groups, loaded, sorted by kind then name."""
    records = []
    for kind in kinds:
        found = sorted(entry_points(group=kind.group), key=lambda ep: (ep.name, ep.value))
        records += [_load_entry_point(ep, kind) for ep in found]
    return records


def plugin_folders(root: Path) -> list[Path]:
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))


def _manifest_record(folder: Path, kinds: tuple[ExtensionKind, ...]) -> tuple[PluginRecord, Manifest | None]:
    try:
        manifest = read_manifest(folder)
    except ManifestError as exc:
        return PluginRecord(name=folder.name, source=FOLDER, status=OK, location=str(folder)).fail(str(exc)), None
    record = PluginRecord(name=manifest.name, source=FOLDER, status=DISABLED, kind=manifest.kind,
                          version=manifest.version, api_version=manifest.api_version,
                          families=sorted(manifest.families), location=str(folder))
    if kind_named(manifest.kind, kinds) is None:
        record.fail(f"unknown kind {manifest.kind!r}; this LM Workbench knows {', '.join(k.name for k in kinds)}")
    else:
        problem = api_version_problem(manifest.api_version)
        if problem:
            record.fail(problem)
    return record, manifest


def list_folder_plugins(root: Path, kinds: tuple[ExtensionKind, ...] = KINDS) -> list[PluginRecord]:
    """Folder plugins from their manifests only: nothing is imported (status disabled or error)."""
    return [_manifest_record(folder, kinds)[0] for folder in plugin_folders(root)]


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


def folder_records(root: Path, enabled: Iterable[str], kinds: tuple[ExtensionKind, ...] = KINDS) -> list[PluginRecord]:
    """Folder plugins of every kind; those named in ``enabled`` (with a good manifest) are imported and checked."""
    enabled_names = {name for name in enabled if isinstance(name, str)}
    records = []
    for folder in plugin_folders(root):
        record, manifest = _manifest_record(folder, kinds)
        if manifest is not None and record.status == DISABLED and record.name in enabled_names:
            try:
                cls = import_folder_plugin(manifest)
            except (Exception, SystemExit) as exc:
                record.fail(f"cannot import {manifest.module}: {describe_exception(exc)}")
            else:
                _record_loaded(record, cls, kind_named(manifest.kind, kinds))
        records.append(record)
    return records


def discover(settings: Any = None, root: Path | None = None,
             kinds: tuple[ExtensionKind, ...] = KINDS) -> list[PluginRecord]:
    """Entry-point plugins, then folder plugins, of every kind; a name already taken within a kind makes the
    later one an error."""
    if root is None:
        from lm_workbench.paths import plugins_dir

        root = plugins_dir()
    enabled = getattr(settings, "enabled_plugins", None)
    records = entry_point_records(kinds) + folder_records(root, enabled if isinstance(enabled, list) else [], kinds)
    seen: dict[tuple[str, str], PluginRecord] = {}
    for record in records:
        first = seen.get((record.kind, record.name))
        if first is None:
            seen[(record.kind, record.name)] = record
        else:
            record.fail(f"the name {record.name!r} is already taken by the {first.source} plugin at {first.location}")
    return records
