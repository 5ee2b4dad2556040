"""Explain's "instead of" with the real widgets: one click on "second choice" explains the top candidate against
the runner-up, and the strip equals the difference of the two maps taken here by plain autograd."""

from __future__ import annotations

import numpy as np
import pytest
import torch

pytestmark = pytest.mark.timeout(120)

WAIT = 30000


def _grad_input(model, ids, token_id):
    emb = model.get_input_embeddings()(ids).detach().requires_grad_(True)
    model(inputs_embeds=emb).logits[0, -1, token_id].backward()
    return (emb * emb.grad).sum(-1)[0].detach().double().numpy()


def test_second_choice_is_one_click_and_the_field_stays_empty_by_default(open_window, qtbot, tiny_models):
    import transformers as tf

    folder = str(tiny_models["gpt2"])
    window = open_window(folder, "predictions")
    view = window.view("predictions")
    text = "The cat sat on the"
    window.text_input.set_text(text)
    qtbot.waitUntil(lambda: view.pages.currentWidget() is view.next_page, timeout=WAIT)
    panel = view.explain
    assert panel.contrast_edit.text() == "" and panel.contrast() is None  # no foil unless asked
    top, second = view.candidates()[0], view.candidates()[1]
    panel.second_button.click()
    qtbot.waitUntil(lambda: panel.strip.isVisible() and panel.explain_button.isEnabled(), timeout=WAIT)
    model = tf.AutoModelForCausalLM.from_pretrained(folder).eval()
    ids = torch.tensor([tf.AutoTokenizer.from_pretrained(folder)(text)["input_ids"]])
    expected = _grad_input(model, ids, top.id) - _grad_input(model, ids, second.id)
    np.testing.assert_allclose(panel.strip.scores(), expected, rtol=1e-4, atol=1e-7)
    assert panel.contrast_edit.text() == second.token and "instead of" in panel.summary.text()
    panel.set_method("rollout")  # rollout does not read the target: no foil for it
    assert not panel.contrast_edit.isEnabled() and panel.contrast() is None
