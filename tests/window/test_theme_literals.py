"""No colour, font size, line width or fixed pixel size is written into ``ui/`` outside the theme.

Every such value is a named token (``ui/theme_tokens.py``) read through
``lm_workbench.ui.theme.current()``, so a token swap reaches it. This test reads the
source (no Qt): hex colours in strings, ``rgb(...)``, sizes in ``px``/``pt``
inside strings, literal numbers given to Qt's size, margin, spacing, font and
pen calls, and literal colours or widths given to pyqtgraph. Zero is allowed
(no margin, no spacing: Qt needs the literal). Not checked: the geometry
custom painters compute inside their own cells (paddings, corner radii).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

UI = Path(__file__).resolve().parents[2] / "ui"
THEME_FILES = {"theme.py", "theme_tokens.py"}

HEX_COLOUR = re.compile(r"(?<![&\w])#(?:[0-9a-fA-F]{8}|[0-9a-fA-F]{6}|[0-9a-fA-F]{3})\b")
CSS_COLOUR = re.compile(r"\brgba?\(|(?:color|background|border)\s*:[^;{}]*\b(?:white|black|red|blue|green|gray|grey)\b")
CSS_SIZE = re.compile(r"\b\d+(?:\.\d+)?\s*(?:px|pt)\b")
# Qt calls whose numeric arguments are pixel or point sizes.
SIZE_CALLS = {
    "setFixedWidth", "setFixedHeight", "setFixedSize", "setMinimumWidth", "setMinimumHeight", "setMinimumSize",
    "setMaximumWidth", "setMaximumHeight", "setMaximumSize", "setDefaultSectionSize", "resizeSection",
    "setMinimumSectionSize", "setPointSize", "setPointSizeF", "setPixelSize", "setWidthF", "resize", "setSize",
    "setSymbolSize", "setContentsMargins", "setSpacing", "setHorizontalSpacing", "setVerticalSpacing", "addSpacing",
}
# Calls whose literal arguments are colours (or, for QPen, a width after the colour).
COLOUR_CALLS = {"QColor", "QPen", "QBrush", "mkPen", "mkBrush", "mkColor", "setBackground", "setForeground"}
# Keyword arguments of pyqtgraph and friends that carry a colour or a size.
THEMED_KEYWORDS = {"color", "width", "size", "background", "symbolSize", "symbolBrush", "labelTextColor", "brush",
                   "pen", "symbolPen"}

# The only literals allowed: zero (no margin, no spacing), which no theme would change.
ALLOWED = {"0", "0.0"}


def _name(func: ast.expr) -> str:
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _literal(node: ast.expr) -> str | None:
    """The literal a node is (numbers, strings, and negated numbers), else None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, str)) and not isinstance(
            node.value, bool):
        return repr(node.value) if isinstance(node.value, str) else str(node.value)
    return None


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                ids.add(id(first.value))
    return ids


def violations(source: str, rel: str) -> list[str]:
    """What in ``source`` (the file ``ui/<rel>``) should be a theme token."""
    tree = ast.parse(source)
    docs = _docstrings(tree)
    found = []

    def report(node: ast.AST, what: str) -> None:
        found.append(f"ui/{rel}:{node.lineno}: {what}")

    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            for pattern, what in ((HEX_COLOUR, "colour"), (CSS_COLOUR, "colour"), (CSS_SIZE, "size")):
                match = pattern.search(node.value)
                if match:
                    report(node, f"{what} literal {match.group(0)!r} in a string")
        if not isinstance(node, ast.Call):
            continue
        name = _name(node.func)
        args = [(a, _literal(a)) for a in node.args]
        if name in SIZE_CALLS or name in COLOUR_CALLS:
            for i, (arg, lit) in enumerate(args):
                if lit is None or lit in ALLOWED:
                    continue
                if name == "QPen" and i == 0:  # QPen(colour, ...): the colour is checked as a string above
                    continue
                report(arg, f"literal {lit} given to {name}()")
        for kw in node.keywords:
            if kw.arg in THEMED_KEYWORDS:
                lit = _literal(kw.value)
                if lit is not None and lit not in ALLOWED:
                    report(kw.value, f"literal {kw.arg}={lit} given to {name}()")
    return found


def ui_files() -> list[Path]:
    return sorted(p for p in UI.rglob("*.py") if p.name not in THEME_FILES or p.parent != UI)


def test_no_colour_or_size_literals_outside_the_theme():
    found = [v for path in ui_files() for v in violations(path.read_text(encoding="utf-8"),
                                                           path.relative_to(UI).as_posix())]
    assert not found, "use a token from ui/theme_tokens.py (through theme.current()):\n" + "\n".join(found)


def test_the_check_catches_each_kind_of_literal():
    """The scanner itself: each kind of hard-coded value is reported."""
    found = violations(
        "label.setStyleSheet('QLabel { color: #1f2329; padding: 4px; }')\n"
        "painter.setPen(QPen(QColor('#ffffff'), 2.0))\n"
        "brush = QColor(47, 111, 208, 30)\n"
        "widget.setMinimumWidth(290)\n"
        "font.setPointSizeF(11.0)\n"
        "plot.plot(pen=pg.mkPen('w', width=2), symbolSize=8)\n"
        "html = '&#9679; run #12'\n"  # an HTML entity and a run number are not colours
        "layout.setContentsMargins(0, 0, 0, 0)\n"  # no margin: allowed
        "layout.setSpacing(6)\n",
        "views/probe.py",
    )
    text = "\n".join(found)
    for expected in ("'#1f2329'", "'4px'", "'#ffffff'", "literal 2.0 given to QPen", "literal 47 given to QColor",
                     "literal 290 given to setMinimumWidth", "literal 11.0 given to setPointSizeF",
                     "literal 'w' given to mkPen", "width=2", "symbolSize=8", "literal 6 given to setSpacing"):
        assert expected in text, f"{expected} not reported:\n{text}"
    assert "9679" not in text and "#12" not in text and "setContentsMargins" not in text
