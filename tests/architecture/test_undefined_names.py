"""No product module uses a name it never defines or imports. ``ui/attention/model_grid.py`` called
``grid_values`` (and annotated with ``AttentionSide``) after the import moved away in the house change: the branch
that computes the mosaic on the spot would have raised NameError in the window. pyflakes reads each file as text
(no import, no Qt), so the check is cheap and sees every branch."""

from __future__ import annotations

from pathlib import Path

from pyflakes import api as pyflakes_api
from pyflakes.messages import UndefinedName

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("workbench", "engine", "ui", "plugins")


class _Collect:
    def __init__(self) -> None:
        self.undefined: list[str] = []

    def flake(self, message) -> None:
        if isinstance(message, UndefinedName):
            self.undefined.append(f"{message.filename}:{message.lineno}: {message.message % message.message_args}")

    def unexpectedError(self, filename, message) -> None:  # noqa: N802 - pyflakes' reporter interface
        self.undefined.append(f"{filename}: {message}")

    def syntaxError(self, filename, message, lineno, offset, text) -> None:  # noqa: N802
        self.undefined.append(f"{filename}:{lineno}: {message}")


def _undefined(paths: list[Path]) -> list[str]:
    found = _Collect()
    for path in paths:
        pyflakes_api.checkPath(str(path), found)
    return found.undefined


def test_no_product_module_uses_an_undefined_name():
    paths = [p for folder in PRODUCT for p in sorted((ROOT / folder).rglob("*.py")) if "__pycache__" not in p.parts]
    assert len(paths) > 300
    assert _undefined(paths) == []


def test_the_check_sees_a_name_used_and_never_imported(tmp_path):
    module = tmp_path / "grid.py"
    module.write_text("def set_side(side, values=None):\n"
                      "    return values if values is not None else grid_values(side)\n")
    assert _undefined([module]) == [f"{module}:2: undefined name 'grid_values'"]
