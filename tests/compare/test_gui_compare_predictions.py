"""The Predictions view while comparing: B's fill-mask candidates beside A's, against B's own logits computed
here; a model B that cannot fill masks says why in one line."""

from __future__ import annotations

import os
import shutil

import torch
from PySide6.QtCore import Qt
from transformers import AutoModelForCausalLM, AutoModelForMaskedLM, AutoTokenizer

TEXT = "The cat [MASK] on the mat."
WAIT = 30000


def _compare_with(window, qtbot, spec: str) -> None:
    panel = window.compare.panel
    before = window.compare.loaded
    panel.field.clear()
    qtbot.keyClicks(panel.field, spec)
    qtbot.mouseClick(panel.compare_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.compare.loaded is not None and window.compare.loaded is not before,
                    timeout=WAIT)


def test_predictions_show_b_beside_a(open_window, tiny_models, qtbot, tmp_path):
    folder = tmp_path / "bert-b"
    shutil.copytree(tiny_models["bert"], folder)
    other = AutoModelForMaskedLM.from_pretrained(folder)
    torch.manual_seed(7)
    with torch.no_grad():  # another bert: the same shapes, other weights, so B's candidates are its own
        for p in other.parameters():
            p.add_(0.5 * torch.randn_like(p))
    other.save_pretrained(folder)

    window = open_window(str(tiny_models["bert"]), "predictions")
    window.text_input.set_text(TEXT)
    view = window.view("predictions")
    k = view.k_spin.value()
    _compare_with(window, qtbot, str(folder))
    qtbot.waitUntil(lambda: view.ab.comparing() and bool(view.b.candidate_ids()), timeout=WAIT)

    tok = AutoTokenizer.from_pretrained(folder)  # B's top k from a plain forward pass of the saved B
    batch = tok(TEXT, return_tensors="pt")
    position = batch["input_ids"][0].tolist().index(tok.mask_token_id)
    reloaded = AutoModelForMaskedLM.from_pretrained(folder).eval()
    with torch.no_grad():
        probs = reloaded(**batch).logits[0, position].softmax(-1)
    want = probs.topk(k)
    assert view.b.candidate_ids() == [want.indices.tolist()]
    shown = view.b.fill_page.tables[0].model().candidates()
    torch.testing.assert_close(torch.tensor([c.prob for c in shown]), want.values, atol=1e-5, rtol=0)
    assert view.fill_page.table_ids() != view.b.candidate_ids()  # A's own, not B's
    assert view.ab.b_reason() == ""

    _compare_with(window, qtbot, str(tiny_models["gpt2"]))  # a decoder cannot fill a mask: one line why
    qtbot.waitUntil(lambda: view.ab.b_reason() != "", timeout=WAIT)
    assert "fill-mask" in view.ab.b_reason() and "\n" not in view.ab.b_reason()
    assert view.b.candidate_ids() == [] and view.fill_page.table_ids()


def test_explain_shows_b_s_explanation_of_the_same_word(open_window, tiny_models, qtbot):
    """Explain while comparing a tiny GPT-2 (A) with a tiny Llama (B): B's strip is gradient x input of A's
    selected candidate, as B spells it, after B's own tokens of the text (plain autograd on B here); Stop
    comparing hides B's column."""
    import numpy as np

    from tests.support.grad_reference import hooked_grad_input
    from lm_workbench.ui.widgets.token_layout import display_label

    text = "The cat sat on the"
    window = open_window(str(tiny_models["gpt2"]), "predictions")
    view = window.view("predictions")
    window.text_input.set_text(text)
    qtbot.waitUntil(lambda: view.pages.currentWidget() is view.next_page, timeout=WAIT)
    _compare_with(window, qtbot, str(tiny_models["llama"]))
    qtbot.waitUntil(lambda: view.explain.comparing() and bool(view.b.candidate_ids()), timeout=WAIT)
    view.next_page.table.selectRow(1)
    a_id = view.candidates()[1].id
    view.explain.set_method("grad-input")
    qtbot.mouseClick(view.explain.explain_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.explain.strip_b.isVisible() and view.explain.explain_button.isEnabled(),
                    timeout=WAIT)

    word = AutoTokenizer.from_pretrained(tiny_models["gpt2"]).decode([a_id]).strip()
    tok_b = AutoTokenizer.from_pretrained(tiny_models["llama"])
    b_id = next(ids[0] for ids in (tok_b(t, add_special_tokens=False)["input_ids"] for t in (" " + word, word))
                if len(ids) == 1)
    ids = tok_b(text)["input_ids"]
    model_b = AutoModelForCausalLM.from_pretrained(tiny_models["llama"]).eval()
    expected = hooked_grad_input(model_b, model_b.get_input_embeddings(),
                                 lambda m: m(input_ids=torch.tensor([ids])).logits[0, -1, b_id])
    strip_b = view.explain.strip_b
    assert strip_b.tokens() == [display_label(t) for t in tok_b.convert_ids_to_tokens(ids)]
    np.testing.assert_allclose(strip_b.scores(), expected, rtol=1e-4, atol=1e-7)
    assert f"<b>{display_label(tok_b.convert_ids_to_tokens([b_id])[0])}</b>" in view.explain.summary_b.text()
    assert view.explain.ab.title_b.text().startswith("B: ")
    if os.environ.get("LM_WORKBENCH_SHOTS"):
        view.grab().save(os.path.join(os.environ["LM_WORKBENCH_SHOTS"], "predictions-explain-ab.png"))
    assert view.explain.strip.scores().shape == (len(AutoTokenizer.from_pretrained(tiny_models["gpt2"])(text)
                                                     ["input_ids"]),)

    qtbot.mouseClick(window.compare.panel.stop_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not view.explain.comparing(), timeout=WAIT)
    assert not strip_b.isVisible() and view.explain.strip.isVisible()
