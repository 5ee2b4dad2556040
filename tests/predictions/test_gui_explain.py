"""Explain in the Predictions tab, with the real widgets: the strip's scores against gradient × input taken here
by plain autograd, the attention band against an eager forward pass, rollout against the matrix product."""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch
from PySide6.QtGui import QColor

from lm_workbench.ui import theme
from lm_workbench.ui.widgets.token_layout import display_label

pytestmark = pytest.mark.timeout(120)

WAIT = 30000


def _explain(qtbot, view, method: str) -> None:
    view.explain.set_method(method)
    view.explain.explain_button.click()
    qtbot.waitUntil(lambda: view.explain.strip.isVisible() and view.explain.explain_button.isEnabled(), timeout=WAIT)


def test_explain_a_next_token_candidate(open_window, qtbot, tiny_models):
    import transformers as tf

    folder = str(tiny_models["gpt2"])
    window = open_window(folder, "predictions")
    view = window.view("predictions")
    text = "The cat sat on the"
    window.text_input.set_text(text)
    qtbot.waitUntil(lambda: view.pages.currentWidget() is view.next_page, timeout=WAIT)
    view.next_page.table.selectRow(1)  # the second candidate, not the top one
    candidate = view.candidates()[1].id
    _explain(qtbot, view, "grad-input")

    model = tf.AutoModelForCausalLM.from_pretrained(folder, attn_implementation="eager").eval()
    ids = torch.tensor([tf.AutoTokenizer.from_pretrained(folder)(text)["input_ids"]])
    emb = model.get_input_embeddings()(ids).detach().requires_grad_(True)
    out = model(inputs_embeds=emb, output_attentions=True)
    out.logits[0, -1, candidate].backward()
    expected = (emb * emb.grad).sum(-1)[0].detach().double().numpy()
    strip = view.explain.strip
    np.testing.assert_allclose(strip.scores(), expected, rtol=1e-4, atol=1e-7)
    # the attention band: the last layer's row of the last token, mean over heads
    np.testing.assert_allclose(strip.attention(), out.attentions[-1][0].mean(0)[-1].detach().double().numpy(),
                               atol=1e-6)
    # the strongest token wears an end of the diverging scale, a near-zero one its middle
    stops = theme.current().colours.diverging_stops
    top = int(np.argmax(np.abs(expected)))
    assert strip.cell_color(top) == QColor(stops[-1] if expected[top] > 0 else stops[0])
    assert view.explain.layer_spin.maximum() == 1  # two layers in the tiny GPT-2
    assert f"{expected[top]:+.4f}" in strip.part_tip(top)
    if os.environ.get("LM_WORKBENCH_SHOTS"):
        view.grab().save(os.path.join(os.environ["LM_WORKBENCH_SHOTS"], "predictions-explain.png"))


def test_explain_a_mask_by_rollout_and_say_why_not_for_flow_errors(open_window, qtbot, tiny_models):
    folder = str(tiny_models["bert"])
    window = open_window(folder, "predictions")
    view = window.view("predictions")
    text = "The [MASK] of the object is a [MASK] value."
    window.text_input.set_text(text)
    qtbot.waitUntil(lambda: view.pages.currentWidget() is view.fill_page, timeout=WAIT)
    view.fill_page.tables[1].selectRow(0)  # the second mask
    _explain(qtbot, view, "rollout")
    from lm_workbench.engine.analysis import encode
    from lm_workbench.engine.models.loading import load_source as load_model

    loaded = load_model(folder)
    attentions = encode(loaded, text, attentions=True).attentions.astype(np.float64)
    ids = loaded.tokenizer(text)["input_ids"]
    mask = [i for i, t in enumerate(ids) if t == loaded.tokenizer.mask_token_id][1]
    mixed = [0.5 * a.mean(0) + 0.5 * np.eye(a.shape[-1]) for a in attentions]
    mixed = [m / m.sum(-1, keepdims=True) for m in mixed]
    np.testing.assert_allclose(view.explain.strip.scores(), (mixed[1] @ mixed[0])[mask], atol=1e-6)
    np.testing.assert_allclose(view.explain.strip.attention(), attentions[-1].mean(0)[mask], atol=1e-6)
    assert "at token" in view.explain.summary.text() and view.explain.strip._marked == mask


def test_explain_pressed_while_predicting_waits_for_the_predictions(open_window, qtbot, tiny_models, monkeypatch):
    """Explain while the predictions are still being computed does not cancel them: it says it waits, then
    explains the top candidate of the predictions for the new text; Cancel stops only the waiting."""
    import threading

    from lm_workbench.ui.predictions import predictions_view

    release = threading.Event()
    real = predictions_view.next_tokens

    def held(*args):
        release.wait(20)
        return real(*args)

    window = open_window(str(tiny_models["gpt2"]), "predictions")
    view = window.view("predictions")
    window.text_input.set_text("The cat sat on the")
    qtbot.waitUntil(lambda: view.pages.currentWidget() is view.next_page and not view._busy, timeout=WAIT)
    monkeypatch.setattr(predictions_view, "next_tokens", held)
    window.text_input.set_text("The name of the")
    qtbot.waitUntil(lambda: view._busy, timeout=WAIT)
    view.explain.explain_button.click()
    assert view.explain.summary.text().startswith("Explaining once the predictions are shown")
    view.explain.cancel_button.click()  # stop waiting: the predictions go on
    assert view.explain.summary.text() == "Cancelled." and view._busy
    view.explain.explain_button.click()
    release.set()
    qtbot.waitUntil(lambda: view.explain.strip.isVisible() and view.explain.explain_button.isEnabled(), timeout=WAIT)
    assert view.ids() == window.loaded.tokenizer("The name of the")["input_ids"]
    top = window.loaded.tokenizer.convert_ids_to_tokens([view.candidates()[0].id])[0]
    assert view.explain.strip.title().endswith(display_label(top))  # the new text's top candidate


def test_an_explanation_outlives_a_refresh_of_the_same_input(open_window, qtbot, tiny_models):
    """The next-token request's key stays the same once its result is shown, so a refresh of the same text
    (F5 changes the font and the window tokenizes again) does not predict again and wipe the explanation."""
    window = open_window(str(tiny_models["gpt2"]), "predictions")
    view = window.view("predictions")
    window.text_input.set_text("The cat sat on the")
    qtbot.waitUntil(lambda: view.pages.currentWidget() is view.next_page and not view._busy, timeout=WAIT)
    _explain(qtbot, view, "grad-input")
    shown = view.state.next
    window.retokenize()
    qtbot.waitUntil(lambda: not window.jobs.busy and not window.loading, timeout=WAIT)
    qtbot.wait(100)
    assert view.state.next is shown and view.explain.strip.isVisible()
    view.accept(0)  # Accept keeps the exact ids: they are the request now
    qtbot.waitUntil(lambda: view.state.next is not shown and not view._busy, timeout=WAIT)
    assert view.ids()[:-1] == shown["ids"] and view.ids()[-1] == shown["candidates"][0].id
