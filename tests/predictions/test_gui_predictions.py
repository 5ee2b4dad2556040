"""The Predictions and Logit lens tabs with real widgets, against independent transformers computations."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from PySide6.QtCore import Qt

from lm_workbench.ui.widgets.colormap import color_at

pytestmark = pytest.mark.timeout(120)

WAIT = 30000


@pytest.fixture
def make_window(open_window):
    return open_window


def _softmax(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _top_ids(logits: np.ndarray, k: int) -> list[int]:
    return np.argsort(-_softmax(logits), kind="stable")[:k].tolist()


def _next_logits(folder: str, ids: list[int]) -> np.ndarray:
    import transformers as tf

    model = tf.AutoModelForCausalLM.from_pretrained(folder).eval()
    with torch.no_grad():
        return model(input_ids=torch.tensor([ids])).logits[0].numpy()


def test_fill_mask_tables_equal_an_independent_softmax(make_window, qtbot, tiny_models):
    import transformers as tf

    folder = str(tiny_models["bert"])
    window = make_window(folder, "predictions")
    view = window.view("predictions")
    text = "The [MASK] of the object is a [MASK] value."
    window.text_input.set_text(text)
    qtbot.waitUntil(lambda: view.pages.currentWidget() is view.fill_page, timeout=WAIT)

    tok = tf.AutoTokenizer.from_pretrained(folder)
    enc = tok(text, return_tensors="pt")
    with torch.no_grad():
        logits = tf.AutoModelForMaskedLM.from_pretrained(folder).eval()(**enc).logits[0].numpy()
    masks = [i for i, t in enumerate(enc["input_ids"][0].tolist()) if t == tok.mask_token_id]
    assert view.fill_page.table_ids() == [_top_ids(logits[p], 5) for p in masks]
    table = view.fill_page.tables[0]
    probs = _softmax(logits[masks[0]])
    shown = table.model().index(0, 3).data(Qt.ItemDataRole.DisplayRole)
    assert shown == f"{probs[_top_ids(logits[masks[0]], 1)[0]]:.4f}"

    view.k_spin.setValue(3)
    qtbot.waitUntil(lambda: [len(ids) for ids in view.fill_page.table_ids()] == [3, 3], timeout=WAIT)
    assert view.fill_page.table_ids() == [_top_ids(logits[p], 3) for p in masks]


def test_minilm_shows_the_missing_head_messages(make_window, qtbot):
    window = make_window("minilm", "predictions")
    view = window.view("predictions")
    window.text_input.set_text("The [MASK] sat on the mat.")
    qtbot.waitUntil(lambda: view.notice.level() == "warning", timeout=WAIT)
    assert "fill-mask needs a masked-LM (MLM) head, and minilm has none" in view.notice.text()
    assert view.notice.isVisible() and view.pages.currentWidget() is view.empty_page
    assert window.message_bar.level() == ""  # a property of the model, not a failure of the window

    window.show_view("lens")
    qtbot.waitUntil(lambda: window.view("lens").notice.level() == "warning", timeout=WAIT)
    assert "the logit lens needs an MLM head" in window.view("lens").notice.text()
    assert window.view("lens").model.rowCount() == 0


def test_next_token_accept_and_generate_keep_exact_ids(make_window, qtbot, tiny_models):
    import transformers as tf

    folder = str(tiny_models["gpt2"])
    window = make_window(folder, "predictions")
    view = window.view("predictions")
    tok = tf.AutoTokenizer.from_pretrained(folder)
    text = "The value of the"
    window.text_input.set_text(text)
    qtbot.waitUntil(lambda: view.pages.currentWidget() is view.next_page, timeout=WAIT)
    ids = tok(text)["input_ids"]
    assert view.ids() == ids
    assert [c.id for c in view.candidates()] == _top_ids(_next_logits(folder, ids)[-1], 5)

    top = view.candidates()[0]
    qtbot.mouseClick(view.next_page.accept_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.ids() == ids + [top.id], timeout=WAIT)
    assert [c.id for c in view.candidates()] == _top_ids(_next_logits(folder, ids + [top.id])[-1], 5)
    assert window.text_input.text() == tok.decode(ids + [top.id], skip_special_tokens=True)

    ids = view.ids()
    second = view.candidates()[1]
    table = view.next_page.table
    cell = table.visualRect(table.model().index(1, 1)).center()
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=cell)  # a view emits doubleClicked
    qtbot.mouseDClick(table.viewport(), Qt.MouseButton.LeftButton, pos=cell)  # only after a press there
    qtbot.waitUntil(lambda: view.ids() == ids + [second.id], timeout=WAIT)

    ids = view.ids()
    model = tf.AutoModelForCausalLM.from_pretrained(folder).eval()
    with torch.no_grad():
        expected = model.generate(torch.tensor([ids]), attention_mask=torch.ones(1, len(ids), dtype=torch.long),
                                  max_new_tokens=20, do_sample=False, pad_token_id=tok.eos_token_id)[0].tolist()
    qtbot.mouseClick(view.next_page.generate_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(view.ids()) > len(ids), timeout=WAIT)
    assert view.ids() == expected


def test_bart_infilling_shows_the_greedy_output(make_window, qtbot, tiny_models):
    import transformers as tf

    folder = str(tiny_models["bart"])
    window = make_window(folder, "predictions")
    view = window.view("predictions")
    text = "The <mask> is true."
    window.text_input.set_text(text)
    qtbot.waitUntil(lambda: view.pages.currentWidget() is view.infill_page, timeout=WAIT)
    tok = tf.AutoTokenizer.from_pretrained(folder)
    model = tf.AutoModelForSeq2SeqLM.from_pretrained(folder).eval()
    enc = tok(text, return_tensors="pt")
    with torch.no_grad():
        out = model.generate(**enc, max_new_tokens=64, do_sample=False, num_beams=1)[0].tolist()[1:]
    decoded = tok.decode(out, skip_special_tokens=True)
    shown = view.infill_page.output_text()
    assert shown == decoded if decoded.strip() else shown.startswith("(empty")
    assert view.infill_page.tokens.text().startswith(f"{len(out)} output tokens")
    assert "<mask>" in view.infill_page.source.text()


def test_logit_lens_last_row_is_the_models_own_argmax(make_window, qtbot, tiny_models):
    import transformers as tf

    folder = str(tiny_models["gpt2"])
    window = make_window(folder, "lens")
    view = window.view("lens")
    text = "The value of the object is returned."
    window.text_input.set_text(text)
    qtbot.waitUntil(lambda: view.model.table() is not None, timeout=WAIT)
    model = view.model
    ids = tf.AutoTokenizer.from_pretrained(folder)(text)["input_ids"]
    logits = _next_logits(folder, ids)
    last = model.rowCount() - 1
    assert model.rowCount() == window.loaded.info.layers + 1
    assert model.columnCount() == len(ids)
    table = model.table()
    assert [table.top[last][p][0].id for p in range(len(ids))] == logits.argmax(-1).tolist()
    assert model.headerData(last, Qt.Orientation.Vertical) == f"layer {last}"
    assert model.headerData(0, Qt.Orientation.Vertical) == "embeddings"
    for row in range(model.rowCount()):
        for col in range(model.columnCount()):
            index = model.index(row, col)
            assert index.data(Qt.ItemDataRole.BackgroundRole) == color_at(table.top[row][col][0].prob)
    tip = model.index(last, 0).data(Qt.ItemDataRole.ToolTipRole)
    assert tip.count("<tr>") == 5 and f"{table.top[last][0][0].prob:.4f}" in tip
