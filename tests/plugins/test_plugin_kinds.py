"""Extension kinds: a new entry-point group is one ``ExtensionKind``; versions are checked before use.

A kind declared here (a toy "prompt set") gets entry-point discovery, the
plugins folder (off until enabled) and error records without any discovery
code of its own.
"""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path

import pytest

import lm_workbench.engine as engine
from lm_workbench.engine.plugin_api import API_VERSION, api_version_problem
from lm_workbench.extensions.discovery import discover
from lm_workbench.extensions.extension_kind import ExtensionKind
from lm_workbench.extensions.kinds import KINDS
from lm_workbench.extensions.registry import ObjectiveRegistry, PluginRegistry
from lm_workbench.settings import Settings

GROUP = "lm_workbench.test_prompt_sets"


class PromptSet:
    """The toy kind's base class (a real kind's lives in the plugin API)."""

    name = ""
    api_version = None
    prompts: tuple[str, ...] = ()


def _check_prompt_set(cls: type) -> str | None:
    return None if cls.prompts and all(isinstance(p, str) for p in cls.prompts) else "it has no prompts"


PROMPT_SETS = ExtensionKind(name="toy-prompt-set", group=GROUP, base=PromptSet, check=_check_prompt_set)
TEST_KINDS = KINDS + (PROMPT_SETS,)

MODULE = '''
import pathlib
from tests.plugins.test_plugin_kinds import PromptSet

pathlib.Path(__file__).with_name("imported.marker").write_text("yes")

class Greetings(PromptSet):
    name = "greetings"
    api_version = {version!r}
    prompts = {prompts!r}
'''


def entry_point_package(site: Path, version: str = API_VERSION) -> None:
    """A package registering ``greetings`` and a broken ``nonsense`` under the toy group, as pip leaves them."""
    (site / "greetings_pkg.py").write_text(MODULE.format(version=version, prompts=("Hello,",)), encoding="utf-8")
    (site / "nonsense_pkg.py").write_text("class Nonsense:\n    name = 'nonsense'\n", encoding="utf-8")
    info = site / "toy_prompts-1.2.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-prompts\nVersion: 1.2.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(
        f"[{GROUP}]\ngreetings = greetings_pkg:Greetings\nnonsense = nonsense_pkg:Nonsense\n", encoding="utf-8")


def folder_plugin(root: Path, folder: str, manifest: dict, code: str) -> Path:
    path = root / folder
    path.mkdir(parents=True)
    (path / "plugin.json").write_text(json.dumps(manifest), encoding="utf-8")
    (path / "prompts.py").write_text(code, encoding="utf-8")
    return path


def test_a_declared_kind_is_discovered_from_entry_points_and_folders(tmp_path, monkeypatch):
    site, root = tmp_path / "site", tmp_path / "plugins"
    site.mkdir()
    entry_point_package(site)
    monkeypatch.syspath_prepend(str(site))
    base = {"version": "0.1", "api_version": API_VERSION, "module": "prompts.py", "class": "Greetings",
            "kind": "toy-prompt-set"}
    riddles = folder_plugin(root, "riddles", base | {"name": "riddles"},
                            MODULE.format(version=API_VERSION, prompts=("What has keys",)).replace(
                                '"greetings"', '"riddles"'))
    empty = folder_plugin(root, "empty", base | {"name": "empty"},
                          MODULE.format(version=API_VERSION, prompts=()).replace('"greetings"', '"empty"'))
    folder_plugin(root, "odd", base | {"name": "odd"},
                  MODULE.format(version=API_VERSION, prompts=7).replace('"greetings"', '"odd"'))
    folder_plugin(root, "alien", base | {"name": "alien", "kind": "spaceship"}, "")
    try:
        off = PluginRegistry(discover(Settings(), root, TEST_KINDS), PROMPT_SETS)
        assert off.names() == ["greetings"] and off.record("riddles").status == "disabled"
        assert not (riddles / "imported.marker").exists()

        records = discover(Settings(enabled_plugins=["riddles", "empty", "odd", "alien"]), root, TEST_KINDS)
        prompts = PluginRegistry(records, PROMPT_SETS)
        assert prompts.names() == ["greetings", "riddles"]
        assert prompts.contribution("riddles").prompts == ("What has keys",)
        greetings = prompts.record("greetings")
        assert (greetings.kind, greetings.source, greetings.version) == ("toy-prompt-set", "entry-point", "1.2.0")
        assert "not a subclass of lm_workbench.engine.plugin_api.PromptSet" in prompts.record("nonsense").error
        assert "no prompts" in prompts.record("empty").error
        assert "not a valid toy-prompt-set: TypeError" in prompts.record("odd").error  # the check itself raised
        alien = next(r for r in records if r.name == "alien")
        assert alien.status == "error" and "unknown kind 'spaceship'" in alien.error
        assert not (root / "alien" / "imported.marker").exists()
        # The objectives are unaffected, and their registry does not hand out another kind's plugins.
        objectives = ObjectiveRegistry(records)
        assert "mlm" in objectives.names() and "greetings" not in objectives.names()
        with pytest.raises(engine.errors.WorkbenchError, match="unknown objective 'greetings'"):
            objectives.objective("greetings")
        assert {d["kind"] for d in objectives.to_dicts()} == {"objective"}
        assert {r.kind for r in prompts.records} == {"toy-prompt-set"}
    finally:
        for module in ("greetings_pkg", "nonsense_pkg"):
            sys.modules.pop(module, None)


@pytest.mark.parametrize("declared, ok", [
    ("3.0", True), ("3.1", True), (3, True), ("3", True), (" 3.0 ", True), ("3.2", True), ("3.3", True), ("3.4", False), ("2.3", False), ("2.0", False), (2, False),
    ("1", False), (1, False), (4, False), (None, False), ("two", False), (True, False), ("3.0.1", False),
])
def test_api_versions_are_compatible_on_the_same_major_and_an_older_minor(declared, ok):
    assert API_VERSION == "3.3"
    assert (api_version_problem(declared) is None) == ok


def test_a_plugin_written_for_api_1_is_refused_before_it_is_imported(tmp_path, monkeypatch):
    from tests.support.folder_plugins import make_folder_plugin

    old = make_folder_plugin(tmp_path, "old", name="old", manifest={"api_version": 1})
    unversioned = make_folder_plugin(tmp_path, "unversioned", name="unversioned")
    code = (unversioned / "echo_objective.py").read_text(encoding="utf-8")
    (unversioned / "echo_objective.py").write_text(code.replace('    api_version = "3.0"\n', ""), encoding="utf-8")
    records = {r.name: r for r in discover(Settings(enabled_plugins=["old", "unversioned"]), tmp_path)}
    assert records["old"].status == "error" and "plugin API version 1; this LM Workbench has version 3.3" in (
        records["old"].error)
    assert not (old / "imported.marker").exists()
    assert records["unversioned"].status == "error" and "declares no usable plugin API version" in (
        records["unversioned"].error)


def test_a_folder_plugin_written_for_api_2_is_refused_with_a_line_that_points_to_the_docs(tmp_path):
    """3.0 moved the API under one import name: a 2.x plugin (``from engine.plugin_api import ...``) is never
    imported; its line names the new import path and the docs' Versions section."""
    from tests.support.folder_plugins import make_folder_plugin

    old = make_folder_plugin(tmp_path, "two", name="two", manifest={"api_version": "2.3"})
    (record,) = [r for r in discover(Settings(enabled_plugins=["two"]), tmp_path) if r.name == "two"]
    assert record.status == "error"
    assert "lm_workbench.engine.plugin_api" in record.error and "docs/writing-an-objective.md" in record.error
    assert not (old / "imported.marker").exists()


def test_the_plugins_contract_forbids_every_engine_module_but_the_plugin_api():
    config = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text(encoding="utf-8"))
    (contract,) = [c for c in config["tool"]["importlinter"]["contracts"] if c.get("source_modules") == ["lm_workbench.plugins"]]
    engine_dir = Path(engine.__file__).parent
    modules = {f"lm_workbench.engine.{p.stem}" for p in engine_dir.glob("*.py") if p.stem != "__init__"}
    modules |= {f"lm_workbench.engine.{p.name}" for p in engine_dir.iterdir() if (p / "__init__.py").is_file()}
    assert modules - {"lm_workbench.engine.plugin_api"} <= set(contract["forbidden_modules"])
    assert "lm_workbench.engine.plugin_api" not in contract["forbidden_modules"]
