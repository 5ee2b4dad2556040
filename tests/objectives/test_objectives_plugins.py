"""Plugin discovery: third-party packages through entry points, and folder plugins in the plugins folder.

A package that works is listed and used; one that fails to import is listed
with its error and breaks nothing else. A folder plugin is listed from its
manifest without being imported until it is enabled; broken ones (bad
manifest, wrong API version, import error, bad config, an exception in
make_batch) are recorded with their error.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lm_workbench.engine.errors import WorkbenchError
from tests.support.folder_plugins import make_folder_plugin
from tests.support.objective_helpers import tokenizer_for
from lm_workbench.extensions.discovery import discover, list_folder_plugins
from lm_workbench.extensions.registry import ObjectiveRegistry, PluginFailedError
from lm_workbench.settings import Settings, save_settings

FIXTURES = Path(__file__).parents[1] / "support" / "plugins_fixtures"
# The built-in objectives the installed metadata registers (bilm appears once the package is re-installed
# with pyproject's new entry point); these six are always among them.
BUILT_IN = {ep.name for ep in importlib.metadata.entry_points(group="lm_workbench.objectives")
            if ep.value.startswith("lm_workbench.plugins.objectives.")}
assert {"bart", "clm", "distillation", "mlm", "spanbert", "t5-span"} <= BUILT_IN


def install_by_hand(source: Path, target: Path) -> None:
    """What pip would leave: the modules and a .dist-info with METADATA and entry_points.txt."""
    import tomllib

    meta = tomllib.loads((source / "pyproject.toml").read_text(encoding="utf-8"))
    project = meta["project"]
    for module in meta["tool"]["setuptools"]["py-modules"]:
        shutil.copy(source / f"{module}.py", target)
    info = target / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n", encoding="utf-8")
    lines = []
    for group, items in project["entry-points"].items():
        lines += [f"[{group}]"] + [f"{name} = {value}" for name, value in items.items()]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def installed_packages(tmp_path_factory) -> Path:
    """The two fixture packages installed with pip into a private target folder (built from copies).

    Without setuptools in the environment (Python 3.12+ venvs lack it) pip cannot build them offline;
    then the same files are laid out by hand.
    """
    work = tmp_path_factory.mktemp("third-party")
    sources = [shutil.copytree(FIXTURES / name, work / "src" / name) for name in
               ("good_objective_pkg", "broken_objective_pkg")]
    target = work / "site"
    if importlib.util.find_spec("setuptools") is not None:
        subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index",
                        "--quiet", "--target", str(target), *map(str, sources)], check=True, timeout=120)
    else:
        target.mkdir()
        for source in sources:
            install_by_hand(source, target)
    return target


@pytest.fixture
def third_party(installed_packages, monkeypatch) -> Path:
    monkeypatch.syspath_prepend(str(installed_packages))
    yield installed_packages
    for module in ("simple_mask_objective", "broken_objective"):
        sys.modules.pop(module, None)


def by_name(records):
    return {r.name: r for r in records}


def test_third_party_package_works_and_a_broken_one_is_isolated(third_party, tiny_models, tmp_path):
    registry = ObjectiveRegistry.discover(Settings(), root=tmp_path / "no-folder-plugins")
    records = by_name(registry.records)
    good, broken = records["simple-mask"], records["broken-objective"]
    assert (good.status, good.source, good.version, good.api_version, good.families, good.error) == (
        "ok", "entry-point", "0.3.0", "3.3", ["encoder"], None)
    assert broken.status == "error" and broken.source == "entry-point" and broken.version == "0.0.1"
    assert "RuntimeError" in broken.error and "broken on purpose" in broken.error
    assert BUILT_IN | {"simple-mask"} == set(registry.names())

    tok = tokenizer_for(tiny_models, "bert")
    ids = tok(["The bank raised its rates.", "We sat by the river bank."])["input_ids"]
    good_batch = registry.make_batch("simple-mask", ids, tok, np.random.default_rng(0),
                                     registry.objective("simple-mask").default_config())
    assert good_batch.inputs["input_ids"].shape[0] == 2
    with pytest.raises(WorkbenchError, match="broken-objective.*broken on purpose"):
        registry.objective("broken-objective")
    mlm = registry.make_batch("mlm", ids, tok, np.random.default_rng(0), registry.objective("mlm").default_config())
    assert len(mlm) == 2


def test_cli_lists_and_uses_third_party_objectives(third_party, tiny_models, capsys, fresh_home):
    from lm_workbench.cli.main import main

    assert main(["plugins", "list", "--json"]) == 0
    plugins = {p["name"]: p for p in json.loads(capsys.readouterr().out)["plugins"]}
    assert set(plugins["simple-mask"]) >= {"name", "version", "api_version", "families", "source", "status", "error"}
    assert plugins["simple-mask"]["status"] == "ok" and plugins["broken-objective"]["status"] == "error"
    assert all(plugins[name]["status"] == "ok" for name in BUILT_IN)
    code = main(["corrupt", "--objective", "simple-mask", "--tokenizer", str(tiny_models["bert"]),
                 "--text", "The bank raised its rates.", "--set", "rate=1.0", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["input_tokens"][1:-1] == ["[MASK]"] * (len(out["tokens"]) - 2)


def test_a_disabled_folder_plugin_is_listed_but_never_imported(tmp_path, tiny_models):
    folder = make_folder_plugin(tmp_path, "echo")
    marker = folder / "imported.marker"
    (listed,) = list_folder_plugins(tmp_path)
    assert (listed.name, listed.status, listed.source, listed.version, listed.families) == (
        "echo", "disabled", "folder", "1.0.0", ["decoder"])
    records = by_name(discover(Settings(), tmp_path))
    assert records["echo"].status == "disabled" and not marker.exists()
    registry = ObjectiveRegistry(discover(Settings(), tmp_path))
    with pytest.raises(WorkbenchError, match="not enabled"):
        registry.objective("echo")
    assert not marker.exists()

    enabled = ObjectiveRegistry(discover(Settings(enabled_plugins=["echo"]), tmp_path))
    assert marker.exists() and by_name(enabled.records)["echo"].status == "ok"
    tok = tokenizer_for(tiny_models, "gpt2")
    batch = enabled.make_batch("echo", [[5, 6, 7]], tok, np.random.default_rng(0),
                               enabled.objective("echo").default_config())
    assert batch.inputs["input_ids"].tolist() == [[5, 6, 7]]


def test_broken_folder_plugins_are_recorded_and_isolated(tmp_path, tiny_models):
    make_folder_plugin(tmp_path, "old-api", name="old-api", manifest={"api_version": 99})
    make_folder_plugin(tmp_path, "raises", name="raises", extra="raise ImportError('needs a missing library')")
    make_folder_plugin(tmp_path, "bad-config", name="bad-config", rate=2.0)
    make_folder_plugin(tmp_path, "bad-batch", name="bad-batch", body="raise ValueError('oops in make_batch')")
    make_folder_plugin(tmp_path, "wrong-name", name="wrong-name", manifest={"name": "other-name"})
    make_folder_plugin(tmp_path, "escape", name="escape", manifest={"module": "../escape.py"})
    make_folder_plugin(tmp_path, "taken", name="mlm")
    (tmp_path / "no-manifest").mkdir()
    (tmp_path / "bad-json").mkdir()
    (tmp_path / "bad-json" / "plugin.json").write_text("{not json", encoding="utf-8")
    enabled = ["old-api", "raises", "bad-config", "bad-batch", "other-name", "escape", "mlm"]
    registry = ObjectiveRegistry(discover(Settings(enabled_plugins=enabled), tmp_path))
    records = {(r.name, r.source): r for r in registry.records}
    folder = {name: r for (name, source), r in records.items() if source == "folder"}

    assert "plugin API version 99" in folder["old-api"].error
    assert not (tmp_path / "old-api" / "imported.marker").exists(), "an incompatible plugin is not imported"
    assert "needs a missing library" in folder["raises"].error
    assert "bad config" in folder["bad-config"].error and "rate must be at most 1" in folder["bad-config"].error
    assert "registered as 'other-name'" in folder["other-name"].error
    assert "must be a .py file name" in folder["escape"].error
    assert "already taken" in folder["mlm"].error and records[("mlm", "entry-point")].status == "ok"
    assert "no plugin.json" in folder["no-manifest"].error and "not valid JSON" in folder["bad-json"].error
    assert all(r.status == "error" for name, r in folder.items() if name != "bad-batch")

    tok = tokenizer_for(tiny_models, "bert")
    assert folder["bad-batch"].status == "ok"
    with pytest.raises(PluginFailedError, match="bad-batch.*make_batch raised ValueError: oops in make_batch"):
        registry.make_batch("bad-batch", [[2, 10, 3]], tok, np.random.default_rng(0),
                            registry.objective("bad-batch").default_config())
    assert folder["bad-batch"].status == "error" and "oops" in folder["bad-batch"].error
    with pytest.raises(WorkbenchError, match="cannot be used"):
        registry.objective("bad-batch")
    ok = registry.make_batch("mlm", [[2, 10, 11, 12, 3]], tok, np.random.default_rng(0),
                             registry.objective("mlm").default_config())
    assert len(ok) == 1 and set(registry.names()) == BUILT_IN


def test_cli_lists_folder_plugins_by_settings(fresh_home, capsys):
    from lm_workbench.cli.main import main
    from lm_workbench.paths import plugins_dir

    folder = make_folder_plugin(plugins_dir(), "echo")
    assert main(["plugins", "list", "--json"]) == 0
    plugins = {p["name"]: p for p in json.loads(capsys.readouterr().out)["plugins"]}
    assert plugins["echo"]["source"] == "folder" and plugins["echo"]["status"] == "disabled"
    assert not (folder / "imported.marker").exists()
    save_settings(Settings(enabled_plugins=["echo"]))
    assert main(["plugins", "list", "--json"]) == 0
    plugins = {p["name"]: p for p in json.loads(capsys.readouterr().out)["plugins"]}
    assert plugins["echo"]["status"] == "ok" and plugins["echo"]["error"] is None
    assert (folder / "imported.marker").exists()
    assert main(["plugins", "list"]) == 0
    assert "echo" in capsys.readouterr().out


def test_the_guide_shows_the_fixture_plugin_verbatim():
    guide = (Path(__file__).parents[2] / "docs" / "writing-an-objective.md").read_text(encoding="utf-8")
    example = guide.split("## A complete example", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    assert example == (FIXTURES / "good_objective_pkg" / "simple_mask_objective.py").read_text(encoding="utf-8")
    assert len(example.splitlines()) <= 45
