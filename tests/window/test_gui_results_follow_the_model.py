"""A text-box view hidden while another model loads does not show the old model's result when it is shown again
(issue 49.5: a result is cleared when the model changes); its own result then comes, with no message left over.
One row per view that computes from the text box (Heads keeps its own origin line: tests/heads)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.timeout(120)
WAIT = 30000

SHOWS_RESULT = {  # view id -> whether the view shows a computed result now
    "attention": lambda v: v.state.encoding is not None,
    "predictions": lambda v: v.pages.currentWidget() is not v.empty_page,
    "lens": lambda v: v.model.rowCount() > 0,
    "masking_lab": lambda v: v.state.result is not None,
}


def test_another_models_result_is_not_shown(open_window, qtbot, tiny_models, fresh_home):
    window = open_window(str(tiny_models["gpt2"]), "tokens", size=(1024, 768), about=False)
    window.text_input.set_text("the cat sat on the mat")
    views = {view_id: window.view(view_id) for view_id in SHOWS_RESULT}
    for view_id, view in views.items():  # each view computes its result for the first model
        window.show_view(view_id)
        qtbot.waitUntil(lambda: SHOWS_RESULT[view_id](view) and not view.ctx.jobs.busy(), timeout=WAIT)
    first = window.loaded
    window.show_view("tokens")
    window.load_model(str(tiny_models["gpt2"]))  # the same folder loaded again: another model (retrained, maybe)
    qtbot.waitUntil(lambda: window.loaded is not None and window.loaded is not first, timeout=WAIT)
    for view_id, view in views.items():
        window.show_view(view_id)
        assert not SHOWS_RESULT[view_id](view), view_id  # the old model's result is gone at once
        qtbot.waitUntil(lambda: SHOWS_RESULT[view_id](view) and not view.ctx.jobs.busy(), timeout=WAIT)
        assert view.notice.isHidden() or "Computing with" not in view.notice.text(), view_id
