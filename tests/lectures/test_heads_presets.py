"""The two issue-35 lecture presets: ``presets check`` accepts them, and each plays in the window on the tiny
models installed as the course models, each step checked against computations made here: the heads' split
against the model's own logit difference, a head's ablation against a forward pass with a hook written here,
the contrastive strip against the difference of two autograd maps."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from tests.support.lecture_play import current, install_course_models, step_to
from lm_workbench.cli.main import main
from lm_workbench.lectures.library import data_path, find_builtin

pytestmark = pytest.mark.timeout(180)

FILES = {"which-heads-move-the-answer": "10-which-heads-move-the-answer.json",
         "why-not-the-other-word": "11-why-not-the-other-word.json"}


@pytest.fixture
def course_models_here(tiny_models, monkeypatch, tmp_path):
    return install_course_models(tiny_models, monkeypatch, tmp_path, ("bert", "gpt2"))


def test_presets_check_accepts_them(course_models_here, capsys):
    for name, file in FILES.items():
        assert main(["presets", "check", str(data_path(file)), "--json"]) == 0
        report = json.loads(capsys.readouterr().out)
        assert report["available"] is True and all(report["steps_available"]), name


def test_which_heads_move_the_answer_plays(open_window, qtbot, course_models_here):
    import transformers as tf

    window = open_window(about=False)
    preset = find_builtin("which-heads-move-the-answer")
    assert window.lectures.start(preset)
    view = window.view("heads")
    step_to(qtbot, window, 0, lambda: window.loaded is not None and view.state.dla is not None)
    assert current(window) == "heads"
    folder = window.loaded.info.folder
    model, tok = tf.AutoModelForCausalLM.from_pretrained(folder).eval(), tf.AutoTokenizer.from_pretrained(folder)
    ids = tok(preset.steps[0].inputs["text"])["input_ids"]
    first = preset.steps[0].settings
    (x,), (y,) = tok(first["target"])["input_ids"], tok(first["contrast"])["input_ids"]

    def difference(hook=None):
        handle = model.transformer.h[0].attn.c_proj.register_forward_pre_hook(hook) if hook else None
        with torch.no_grad():
            logits = model(input_ids=torch.tensor([ids])).logits[0, -1]
        if handle is not None:
            handle.remove()
        return float(logits[x] - logits[y])

    dla = view.state.dla
    assert dla.parts_sum == pytest.approx(difference(), abs=1e-4)
    window.lectures.runner.next()
    step_to(qtbot, window, 1, lambda: view.state.sweep is not None and not view.state.running)

    def zero_head_1(_module, args):
        z = args[0].clone()
        z[..., 8:16] = 0.0
        return (z,)

    assert view.sweep_map.matrix()[0, 1] == pytest.approx(difference(zero_head_1) - difference(), abs=1e-5)
    window.lectures.runner.next()
    step_to(qtbot, window, 2, lambda: view.state.sweep is not None and not view.state.running
            and view.state.sweep.how == "mean")
    assert view.state.sweep.corpus_tokens > 100 and np.isfinite(view.sweep_map.matrix()).all()


def _grad_input(model, ids, position, token_id):
    emb = model.get_input_embeddings()(ids).detach().requires_grad_(True)
    model(inputs_embeds=emb).logits[0, position, token_id].backward()
    return (emb * emb.grad).sum(-1)[0].detach().double().numpy()


def test_why_not_the_other_word_plays(open_window, qtbot, course_models_here):
    import transformers as tf

    window = open_window(about=False)
    preset = find_builtin("why-not-the-other-word")
    assert window.lectures.start(preset)
    panel = window.view("predictions").explain
    step_to(qtbot, window, 0, lambda: panel.strip.isVisible() and panel.explain_button.isEnabled())
    assert panel.contrast_edit.text() == "" and "instead of" not in panel.summary.text()
    window.lectures.runner.next()
    step_to(qtbot, window, 1, lambda: "instead of" in panel.summary.text() and panel.explain_button.isEnabled())
    folder = window.loaded.info.folder
    model, tok = tf.AutoModelForMaskedLM.from_pretrained(folder).eval(), tf.AutoTokenizer.from_pretrained(folder)
    ids = torch.tensor([tok(preset.steps[0].inputs["text"])["input_ids"]])
    position = int((ids[0] == tok.mask_token_id).nonzero()[0, 0])
    with torch.no_grad():
        first, second = torch.topk(model(input_ids=ids).logits[0, position], 2).indices.tolist()
    expected = _grad_input(model, ids, position, first) - _grad_input(model, ids, position, second)
    np.testing.assert_allclose(panel.strip.scores(), expected, rtol=1e-4, atol=1e-7)
    assert panel.contrast_edit.text() == tok.convert_ids_to_tokens([second])[0]
    window.lectures.runner.next()
    step_to(qtbot, window, 2, lambda: panel.summary.text().startswith("integrated gradients")
            and panel.explain_button.isEnabled())
    assert "instead of" in panel.summary.text() and "difference − baseline" in panel.summary.text()
