"""The README's Layout section names every package one level under ``engine/``, ``workbench/`` and ``ui/``
(a new package that the map leaves out is how the last round's README went stale)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ("engine", "workbench", "ui")


def _layout_sections() -> dict[str, str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    layout = text[text.index("## Layout"):]
    layout = layout[:layout.index("\n## ", 3)] if "\n## " in layout[3:] else layout
    marks = {layer: layout.index(f"**{layer}/**") for layer in LAYERS}
    ends = sorted(marks.values()) + [len(layout)]
    return {layer: layout[start:ends[ends.index(start) + 1]] for layer, start in marks.items()}


@pytest.mark.parametrize("layer", LAYERS)
def test_the_layout_names_every_package_of_the_layer(layer):
    section = _layout_sections()[layer]
    packages = sorted(p.name for p in (ROOT / layer).iterdir() if (p / "__init__.py").is_file())
    missing = [name for name in packages
               if not re.search(rf"`({layer}/)?{re.escape(name)}/", section)]
    assert missing == [], f"README Layout, {layer}/: no line names {missing}"
