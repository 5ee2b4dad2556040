"""The patching target's name (issue 43.5): ``target``/``contrast`` in patching's state, presets and workspaces,
as dla, ablate and ``patch --target/--contrast`` name them. Presets and workspaces written before name them
``answer``/``wrong``: read forever, written back in the new form."""

from __future__ import annotations

import pytest

from lm_workbench.patching.view_tasks import engine_arguments
from lm_workbench.patching.state import PatchingState, settings_in_new_form

BASE = {"clean": "The class is a", "corrupt": "The type is a", "site": "attn"}
# (saved keys, the target and contrast they mean)
ROWS = [
    ({"answer": " instance", "wrong": " single"}, " instance", " single"),  # written before issue 43
    ({"target": " instance", "contrast": " single"}, " instance", " single"),  # the new form
    ({"answer": " old", "target": " instance", "contrast": " single"}, " instance", " single"),  # new wins
    ({"answer": " instance"}, " instance", ""),  # no contrast: logit(target) alone
    ({"target": " instance", "wrong": " single"}, " instance", " single"),  # a hand-edited mix
]


@pytest.mark.parametrize("keys,target,contrast", ROWS)
def test_old_and_new_keys_read_alike_and_save_in_the_new_form(keys, target, contrast):
    settings = BASE | keys
    given = dict(settings)
    read = settings_in_new_form(settings)
    assert settings == given  # the caller's dict is left as it was
    state = PatchingState()
    state.set_inputs(read["clean"], read["corrupt"], read.get("target", ""), read.get("contrast", ""), read["site"])
    assert (state.target, state.contrast) == (target, contrast)
    saved = state.to_settings()
    assert saved["target"] == target and saved["contrast"] == contrast
    assert "answer" not in saved and "wrong" not in saved
    assert settings_in_new_form(saved) == saved  # the new form reads as itself
    request = state.request()  # typed, as the CLI builds it; the engine's patching_job names them answer and wrong
    assert (request.target, request.contrast) == (target, contrast or None)
    engine = engine_arguments(request)
    assert engine["answer"] == target and engine["wrong"] == (contrast or None)


@pytest.mark.parametrize("keys,target,contrast", ROWS[:2])
def test_the_patching_view_reads_old_presets_and_saves_the_new_form(keys, target, contrast, qtbot):
    from lm_workbench.ui.patching.patching_view import PatchingView

    view = PatchingView()
    qtbot.addWidget(view)
    view.apply_preset_step(BASE | keys, {})
    assert (view.answer_edit.text(), view.wrong_edit.text()) == (target, contrast)
    saved = view.preset_state()[0]
    assert (saved["target"], saved["contrast"]) == (target, contrast) and "answer" not in saved
