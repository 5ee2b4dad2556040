"""Make the built-in ``bilm`` objective discoverable before the package is re-installed.

Entry points come from the installed metadata; until ``pip install -e .`` has
read pyproject's new ``bilm`` line, these tests add a one-entry distribution
(``.dist-info`` with ``entry_points.txt``) to ``sys.path``. Once installed, the
fixture adds nothing (two ``bilm`` entry points would clash).
"""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import pytest

ENTRY = "bilm = lm_workbench.plugins.objectives.bilm:BidirectionalLM"


def _installed() -> bool:
    return any(ep.name == "bilm" for ep in importlib.metadata.entry_points(group="lm_workbench.objectives"))


@pytest.fixture
def bilm_registered(tmp_path_factory, monkeypatch) -> None:
    if _installed():
        return
    site = Path(tmp_path_factory.mktemp("bilm-entry-point"))
    info = site / "lm_workbench_bilm_fixture-0.0.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: lm-workbench-bilm-fixture\nVersion: 0.0.0\n",
                                   encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[lm_workbench.objectives]\n{ENTRY}\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))
    assert _installed()
