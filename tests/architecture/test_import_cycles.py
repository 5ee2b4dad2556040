"""No import cycles in ``lm_workbench`` (ui, the core, engine and plugins); the CLI's command modules import only
``lm_workbench.cli.common``.

An import inside a function body is a real dependency (it runs when the
function does), so a cycle through one counts; only imports under
``if TYPE_CHECKING:`` are left out, since they never run.
"""

from __future__ import annotations

import textwrap

import grimp
import pytest

from tests.support.cycles import import_cycles
from tests.support.source_tree import import_graph


def describe(graph: grimp.ImportGraph, group: list[str]) -> str:
    """One cycle in the group, as ``a -> b -> a`` with the line of each import."""
    first = group[0]
    for other in group[1:]:
        there = graph.find_shortest_chain(first, other)
        back = graph.find_shortest_chain(other, first)
        if there and back:
            chain = list(there) + list(back[1:])
            steps = []
            for a, b in zip(chain, chain[1:]):
                details = graph.get_import_details(importer=a, imported=b)
                line = details[0]["line_number"] if details else "?"
                steps.append(f"{a} (line {line})")
            return " -> ".join(steps + [chain[-1]])
    return ", ".join(group)


def test_no_import_cycles_in_the_package():
    graph = import_graph(exclude_type_checking_imports=True)
    cycles = [describe(graph, group) for group in import_cycles(graph)]
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def test_cli_command_modules_import_only_common():
    """Each ``*_commands`` module stands alone: it may use ``lm_workbench.cli.common``, never a sibling."""
    graph = import_graph()
    commands = sorted(m for m in graph.find_children("lm_workbench.cli") if m.endswith("_commands"))
    assert len(commands) >= 6, commands
    offenders = {
        module: sorted(i for i in graph.find_modules_directly_imported_by(module)
                       if i.startswith("lm_workbench.cli") and i != "lm_workbench.cli.common")
        for module in commands
    }
    assert not any(offenders.values()), offenders


def test_the_cycle_check_sees_lazy_imports_but_not_type_checking_ones(tmp_path, monkeypatch):
    """The check itself: a cycle through a function-local import is found; one under TYPE_CHECKING is not."""
    package = tmp_path / "cyclepkg"
    package.mkdir()
    files = {
        "__init__.py": "",
        "a.py": "from cyclepkg import b\n",
        "b.py": "def later():\n    from cyclepkg import a\n    return a\n",
        "c.py": "from typing import TYPE_CHECKING\nfrom cyclepkg import d\nif TYPE_CHECKING:\n    from cyclepkg import e\n",
        "d.py": "",
        "e.py": "from cyclepkg import c\n",
    }
    for name, text in files.items():
        (package / name).write_text(textwrap.dedent(text), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    graph = grimp.build_graph("cyclepkg", cache_dir=None, exclude_type_checking_imports=True)
    groups = import_cycles(graph)
    assert groups == [["cyclepkg.a", "cyclepkg.b"]]
    assert describe(graph, groups[0]) == "cyclepkg.a (line 1) -> cyclepkg.b (line 2) -> cyclepkg.a"


@pytest.mark.parametrize("edges, expected", [
    ([("p.x", "p.y"), ("p.y", "p.z")], []),
    ([("p.x", "p.y"), ("p.y", "p.z"), ("p.z", "p.x"), ("p.z", "p.w")], [["p.x", "p.y", "p.z"]]),
    ([("p.x", "p.y"), ("p.y", "p.x"), ("p.v", "p.w"), ("p.w", "p.v")], [["p.v", "p.w"], ["p.x", "p.y"]]),
])
def test_cycle_groups_of_a_hand_made_graph(edges, expected):
    graph = grimp.ImportGraph()
    for importer, imported in edges:
        graph.add_import(importer=importer, imported=imported)
    assert import_cycles(graph) == expected
