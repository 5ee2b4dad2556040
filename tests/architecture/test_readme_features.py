"""The README's feature table is true: it names every command of the real parser and every view of the registry
with the view's own key; and every example command line in the README and docs/ parses with today's parser (a
renamed flag or command must not leave the docs behind)."""

from __future__ import annotations

import argparse
import re
import shlex
from pathlib import Path

import pytest

from lm_workbench.cli.parser import build_parser

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def _table_rows() -> list[list[str]]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## What it does"):]
    section = section[:section.index("\n## ", 3)]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in row.strip("|").split(" | ")] for row in rows[2:]]  # after header, rule


def command_paths(parser: argparse.ArgumentParser, prefix: str = "") -> list[str]:
    """Every command as typed: 'finetune', and each nested one ('runs list'); a group itself is not a command."""
    paths = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                nested = command_paths(sub, f"{prefix}{name} ")
                paths += nested or [f"{prefix}{name}"]
    return paths


def missing_commands(rows: list[list[str]], commands: list[str]) -> list[str]:
    """The commands that no row's Command cell names as a code span (`cmd` or `cmd --flag ...`)."""
    spans = [span for row in rows for span in re.findall(r"`([^`]+)`", row[1])]
    return [c for c in commands if not any(s == c or s.startswith(c + " ") for s in spans)]


def test_the_table_names_every_command_of_the_parser():
    commands = command_paths(build_parser())
    assert "finetune-merge" in commands and "runs list" in commands  # the walk reaches flat and nested commands
    assert missing_commands(_table_rows(), commands) == []


def test_the_table_names_every_view_with_its_key():
    from lm_workbench.ui.window.view_registry import builtin_views

    first_cells = [row[0] for row in _table_rows()]
    wrong = []
    for entry in builtin_views():
        key = entry.shortcut or "no key"
        if not any(cell.startswith(f"**{entry.title}** ({key})") for cell in first_cells):
            wrong.append(f"{entry.title} ({key})")
    assert wrong == [], "README table: no row starts with these views and their keys"


def test_the_checks_catch_a_missing_command():
    rows = [["**Tokens** (Ctrl+1)", "`info`, `finetune --task instruct`", "[x](x.md)"]]
    assert missing_commands(rows, ["info", "finetune", "runs list", "inf"]) == ["runs list", "inf"]


def example_lines(page: Path) -> list[str]:
    """The `lm-workbench ...` lines of a page's ```bash blocks (shell comments and `\\` continuations handled)."""
    text = page.read_text(encoding="utf-8")
    lines = []
    for block in re.findall(r"^```bash\n(.*?)^```", text, re.S | re.M):
        for line in block.replace("\\\n", " ").splitlines():
            words = shlex.split(line, comments=True)
            if words and words[0].endswith("lm-workbench"):
                lines.append(line)
    return lines


EXAMPLES = [(page, line) for page in PAGES for line in example_lines(page)]


def test_the_docs_have_examples():
    assert len(EXAMPLES) >= 30


@pytest.mark.parametrize("page, line", EXAMPLES,
                         ids=[f"{p.relative_to(ROOT)}:{i}" for i, (p, _) in enumerate(EXAMPLES)])
def test_every_example_command_parses(page, line):
    argv = shlex.split(line, comments=True)[1:]
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as stop:
        pytest.fail(f"{page.relative_to(ROOT)}: {line!r} does not parse (exit {stop.code})")
    assert callable(getattr(args, "handler", None)), line
