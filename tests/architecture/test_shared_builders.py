"""Views build what every view builds through the shared builders, so the set-up is written once: a layout's theme
margins and spacing through ``ui/widgets/boxes.py`` (``themed``, ``column``, ``row``), a small line chart's
set-up through ``plain_plot_item``, an integer or decimal spin box through ``controls.spin_box`` /
``double_spin_box``. Each rule is a pattern that must occur only in its builder's module (read as text, so cheap);
a planted copy is caught."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

UI = Path(__file__).resolve().parents[2] / "ui"
RULES = {
    # theme.bind(X, lambda w, m: w.setContentsMargins(*m.NAME)) / w.setSpacing(m.NAME): boxes.themed(X, ...)
    "plain theme margins or spacing": (
        re.compile(r"theme\.bind\(\w[\w.]*, lambda w, m: w\.(setContentsMargins\(\*m\.\w+\)|setSpacing\(m\.\w+\))\)"),
        {"widgets/boxes.py"}),
    "a chart's menu, buttons and grid": (
        re.compile(r"setMenuEnabled\(False\)\s*\n\s*\w+\.hideButtons\(\)"), {"widgets/plain_plot.py"}),
    "a spin box set up by hand": (
        re.compile(r"= Q(Double)?SpinBox\(\)\s*\n\s*[\w.]+\.setRange\("), {"widgets/controls.py"}),
    # a theme binding runs again on every theme change: one that adds an item adds another one each time (the
    # Attention controls' and the curve overlay's gaps did); a gap of the theme's size is boxes.Gap
    "an item added inside a theme binding": (
        re.compile(r"theme\.bind\([^\n]*lambda w, m: [^\n]*\.(addSpacing|addStretch|addWidget|addLayout|addItem)\("),
        set()),
}


def offenders(pattern: re.Pattern, allowed: set[str], files: dict[str, str]) -> list[str]:
    return [name for name, text in files.items() if name not in allowed and pattern.search(text)]


def _ui_files() -> dict[str, str]:
    return {p.relative_to(UI).as_posix(): p.read_text(encoding="utf-8") for p in UI.rglob("*.py")
            if "__pycache__" not in p.parts}


@pytest.mark.parametrize("rule", sorted(RULES))
def test_views_use_the_shared_builders(rule):
    pattern, allowed = RULES[rule]
    builder = sorted(allowed or {"widgets/boxes.py"})[0]
    assert offenders(pattern, allowed, _ui_files()) == [], f"{rule}: use the builder in {builder}"


def test_a_planted_copy_is_caught():
    planted = {
        "view.py": "        theme.bind(layout, lambda w, m: w.setContentsMargins(*m.view_margins))\n"
                   "        item.setMenuEnabled(False)\n        item.hideButtons()\n"
                   "        self.k = QSpinBox()\n        self.k.setRange(1, 9)\n"
                   "        theme.bind(row, lambda w, m: w.addSpacing(m.wide_spacing))\n",
    }
    for rule, (pattern, allowed) in RULES.items():
        assert offenders(pattern, allowed, planted) == ["view.py"], rule
