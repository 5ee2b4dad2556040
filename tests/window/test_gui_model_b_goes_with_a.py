"""Model B's side of a view (A | B) goes when A's result goes: a hint (empty text, no model) or a failure for the
input in front of the user never stands beside B's line or result for an earlier model or text. Found by a user:
the Predictions tab kept "Model B cannot do fill-mask…" from BERT after loading T5, whose own answer failed.
One row per view that computes B beside A in one job (``ui.view_kit.view_base.paired``); each row shows B's side,
then a failure, then checks B's side is empty (the Attention view did this already)."""

from __future__ import annotations

import pytest


def _predictions_b(view):
    view._show_b(("why", "Model B cannot do fill-mask: that needs an encoder model"))
    return lambda: view.ab.b_reason() == "" and view.b.pages.currentWidget() is view.b.blank


def _lens_b(view):
    view._show_b("Model B cannot do the logit lens")
    return lambda: view.reason_b() == "" and view.model_b.table() is None


def _features_b(view):
    view.state.strip, view.state.strip_b = {"tokens": ["a"]}, {"tokens": ["b"]}
    return lambda: view.state.strip is None and view.state.strip_b is None


ROWS = {"predictions": _predictions_b, "lens": _lens_b, "features": _features_b}


@pytest.mark.parametrize("view_id", sorted(ROWS))
@pytest.mark.parametrize("how", ["show_failure", "show_hint"])
def test_b_side_goes_with_a_result(open_window, view_id, how):
    window = open_window(None, view_id, about=False)
    view = window.view(view_id)
    cleared = ROWS[view_id](view)
    assert not cleared()
    getattr(view, how)("A's result for this input failed")
    assert cleared(), f"{view_id}: B's side stayed after {how}"
