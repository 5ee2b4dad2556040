"""Model B as a declared ability: the views that show B beside A say so (``ModelBView``) and use the one B
column (``lm_workbench.ui.widgets.model_b_split.ModelBSplit``: titles, B's widget, the line saying why B shows nothing)."""

from __future__ import annotations

import inspect
from pathlib import Path

from lm_workbench.ui.view_kit.view_abilities import ABILITIES, check_view_class
from lm_workbench.ui.window.view_registry import builtin_views

ROOT = Path(__file__).resolve().parents[2]
SHOW_B = {"tokens", "attention", "predictions", "lens", "retrieval"}


def test_the_views_that_show_model_b_declare_it_and_the_others_do_not():
    assert ABILITIES["ModelBView"] == ("model_b_split",)
    declared = set()
    for entry in builtin_views():
        cls = entry.view_class()
        check_view_class(entry.id, cls)
        if hasattr(cls, "model_b_split"):
            declared.add(entry.id)
            assert "ModelBSplit" in inspect.getsource(inspect.getmodule(cls)), entry.id
    assert declared == SHOW_B


def test_one_b_column_widget_serves_the_views_and_the_explain_strip():
    users = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "ui").rglob("*.py")
                   if "ModelBSplit(" in p.read_text(encoding="utf-8") and p.name != "model_b_split.py")
    assert users == ["ui/attention/attention_view.py", "ui/lens/lens_view.py", "ui/predictions/predictions_view.py",
                     "ui/retrieval/retrieval_view.py", "ui/tokens/token_panel.py", "ui/widgets/attribution_panel.py"]
