"""The Predictions view while comparing: B's fill-mask candidates beside A's, against B's own logits computed
here; a model B that cannot fill masks says why in one line."""

from __future__ import annotations

import shutil

import torch
from PySide6.QtCore import Qt
from transformers import AutoModelForMaskedLM, AutoTokenizer

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
    assert view.b.reason() == ""

    _compare_with(window, qtbot, str(tiny_models["gpt2"]))  # a decoder cannot fill a mask: one line why
    qtbot.waitUntil(lambda: view.b.reason() != "", timeout=WAIT)
    assert "fill-mask" in view.b.reason() and "\n" not in view.b.reason()
    assert view.b.candidate_ids() == [] and view.fill_page.table_ids()
