"""One import name (issue 43): the distribution installs exactly one top-level package, ``lm_workbench``, mapped
from the repository's four folders (setup.py), and no code imports, or names as a module in a string, the old
top-level names ``engine``, ``workbench``, ``ui`` or ``plugins`` (names any environment may hold; PyPI's
``workbench`` is another project). The built wheel itself is checked in .ci/run (packaging/wheel_check.sh)."""

from __future__ import annotations

import ast
import importlib.util
import re
import tomllib
from pathlib import Path

import pytest

from tests.support.source_tree import FOLDERS, OLD_TOP_LEVEL, ROOT

# A module path in a string or comment: an old top-level name, a dot, and one of that folder's own children.
CHILDREN = {top: {p.stem if p.suffix == ".py" else p.name for p in (ROOT / top).iterdir()
                  if p.suffix == ".py" or (p / "__init__.py").is_file()} - {"__init__"} for top in OLD_TOP_LEVEL}
DOTTED = re.compile(r"(?<![\w./\\-])(engine|workbench|ui|plugins)\.(\w+)")
CHECKED = [p for folder in (*OLD_TOP_LEVEL, "tests", "scripts", "packaging") for p in (ROOT / folder).rglob("*.py")
           if not {"__pycache__", "dist", "build", ".work"} & set(p.parts) and p.name != Path(__file__).name] + [
    ROOT / "setup.py", ROOT / "packaging" / "lm-workbench.spec"]
# Where the old name is the point: the line that refuses a 2.x plugin names the import it used.
ALLOWED = {("engine/api_version.py", "engine.plugin_api"), ("tests/plugins/test_plugin_kinds.py", "engine.plugin_api")}


def _setup_module():
    spec = importlib.util.spec_from_file_location("lm_workbench_setup", ROOT / "setup.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # setup() runs only as __main__
    return module


def test_the_setuptools_configuration_yields_one_top_level_package():
    setup = _setup_module()
    packages = setup.mapped_packages()
    assert {p.split(".")[0] for p in packages} == {"lm_workbench"}
    assert {"lm_workbench", "lm_workbench.engine", "lm_workbench.ui", "lm_workbench.plugins",
            "lm_workbench.engine.finetune", "lm_workbench.ui.view_kit", "lm_workbench.cli"} <= set(packages)
    assert {folder: name for name, folder in setup.FOLDERS.items()} == FOLDERS
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "packages" not in config["tool"]["setuptools"], "setup.py lists the packages (find cannot rename)"
    assert all(key in packages for key in config["tool"]["setuptools"]["package-data"])


def test_no_package_of_the_core_shadows_a_mapped_folder():
    """workbench/plugins/ would install as lm_workbench.plugins, the name plugins/ takes (hence extensions/)."""
    core = {p.name for p in (ROOT / "workbench").iterdir() if p.is_dir()}
    assert core.isdisjoint({"engine", "ui", "plugins"}), core & {"engine", "ui", "plugins"}


def test_every_entry_point_and_script_names_the_one_package():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    values = list(project["scripts"].values()) + [v for group in project["entry-points"].values()
                                                  for v in group.values()]
    assert values and all(v.startswith("lm_workbench.") for v in values), values


def old_names(source: str) -> list[str]:
    """Imports of an old top-level name, and old module paths in strings and comments, as 'line: text'."""
    found = []
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [f"{node.lineno}: import {a.name}" for a in node.names if a.name.split(".")[0] in OLD_TOP_LEVEL]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module \
                and node.module.split(".")[0] in OLD_TOP_LEVEL:
            found.append(f"{node.lineno}: from {node.module}")
    for number, line in enumerate(source.splitlines(), 1):
        for match in DOTTED.finditer(line):
            if match.group(2) in CHILDREN[match.group(1)] and not line.lstrip().startswith(("import ", "from ")):
                before = line[:match.start()]
                if "#" in before or before.count('"') % 2 or before.count("'") % 2 or '"""' in line:
                    found.append(f"{number}: {match.group(0)}")
    return found


@pytest.mark.parametrize("source, expected", [
    ("import engine.analysis\n", ["1: import engine.analysis"]),
    ("from workbench.cli import main\n", ["1: from workbench.cli"]),
    ("from lm_workbench.engine import analysis\n", []),
    ('target = "workbench.finetune.job:finetune_lane_job"\n', ["1: workbench.finetune"]),
    ('name = f"engine.training.{x}"\n', ["1: engine.training"]),
    ("x = 1  # see ui.view_kit\n", ["1: ui.view_kit"]),
    ('path = "engine/patching/sites.py"; log = "workbench.log"\n', []),
    ("self.ui.tokens = 1\n", []),
])
def test_the_old_name_check_itself(source, expected):
    assert old_names(source) == expected


def test_no_module_imports_or_names_an_old_top_level_package():
    offenders = [f"{p.relative_to(ROOT)}:{hit}" for p in CHECKED for hit in old_names(p.read_text(encoding="utf-8"))
                 if (p.relative_to(ROOT).as_posix(), hit.split(": ", 1)[1]) not in ALLOWED]
    assert offenders == []
