"""``import lm_workbench`` is light (issue 44): no torch and no Qt until a model is loaded; nothing but
``lw.gui()`` imports PySide6 (a headless server without GL libraries works)."""

from __future__ import annotations

import subprocess
import sys

CHECK = """
import sys
import lm_workbench as lw
import lm_workbench.api
lw.load, lw.compare, lw.runs, lw.Model, lw.Result
heavy = sorted(m for m in ("torch", "transformers", "PySide6", "matplotlib", "pandas") if m in sys.modules)
print(",".join(heavy) or "light")
"""


def test_importing_the_api_loads_no_torch_and_no_qt():
    out = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "light", out.stdout + out.stderr


def test_only_gui_imports_qt():
    import re
    from pathlib import Path

    folder = Path(__file__).resolve().parents[2] / "workbench" / "api"
    found = [p.name for p in folder.glob("*.py") if re.search(r"PySide6|lm_workbench\.ui\b", p.read_text())]
    assert found == [], found
