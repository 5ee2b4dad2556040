"""The Attention tab with real widgets, checked against a plain transformers forward."""

from __future__ import annotations

import csv

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage

from tests.support.reference import plain_forward
from lm_workbench.ui.attention.model_grid import MEAN

pytestmark = pytest.mark.timeout(120)

SENTENCE = "The bank raised interest rates because inflation rose."
WAIT = 30000


@pytest.fixture
def make_window(open_window):
    return lambda spec: open_window(spec, "attention")


def _wait_encoded(qtbot, view, text: str) -> None:
    qtbot.waitUntil(lambda: view.encoding() is not None and view.encoding().tokenized.text == text, timeout=WAIT)


def _hover(qtbot, head_view, side: str, index: int) -> np.ndarray:
    """Move the mouse onto a token and return what the repaint drew."""
    rect = head_view.token_rect(side, index)
    assert rect is not None
    qtbot.mouseMove(head_view, rect.center().toPoint())
    qtbot.waitUntil(lambda: head_view.hovered() == (side, index), timeout=3000)
    head_view.repaint()
    return head_view.drawn_lines()


def test_hovered_token_draws_exactly_its_weights_above_threshold(make_window, qtbot):
    window = make_window("minilm")
    view = window.view("attention")
    controls = view.controls
    window.text_input.editor.setFocus()
    qtbot.keyClicks(window.text_input.editor, SENTENCE)
    _wait_encoded(qtbot, view, SENTENCE)
    assert not controls.kind_combo.isEnabled()  # an encoder has only self-attention
    controls.layer_spin.setValue(2)
    qtbot.mouseClick(controls.heads.button(5), Qt.MouseButton.LeftButton)
    assert controls.heads.heads() == [5]

    ref = plain_forward(window.loaded.info.folder, SENTENCE)
    weights = ref["attentions"][2, 5]  # [T, T] of layer 2, head 5
    i = view.side().query_tokens.index("bank")
    drawn = _hover(qtbot, view.head_view, "query", i)
    expected = np.flatnonzero(weights[i] >= 0.01)
    assert len(drawn) == len(expected) > 0
    assert set(drawn[:, 0]) == {i} and set(drawn[:, 2]) == {5}
    order = np.argsort(drawn[:, 1])
    assert drawn[order, 1].astype(int).tolist() == expected.tolist()
    assert np.allclose(drawn[order, 3], weights[i, expected], atol=1e-5)
    assert controls.lines_label.text().startswith(f"{len(expected)} lines drawn")

    # Hovering a key shows the lines into it, from every query
    drawn = _hover(qtbot, view.head_view, "key", i)
    into = np.flatnonzero(weights[:, i] >= 0.01)
    assert set(drawn[:, 1]) == {i} and sorted(drawn[:, 0].astype(int).tolist()) == into.tolist()

    # Hide special tokens: the same row without [CLS]/[SEP], renormalised
    qtbot.mouseClick(controls.hide_special, Qt.MouseButton.LeftButton)
    assert controls.hide_special.isChecked()
    special = np.array(view.side().key_special)
    assert special.sum() == 2
    kept = np.flatnonzero(~special)
    renorm = weights[i, kept] / weights[i, kept].sum()
    drawn = _hover(qtbot, view.head_view, "query", i)
    expected = kept[renorm >= 0.01]
    order = np.argsort(drawn[:, 1])
    assert drawn[order, 1].astype(int).tolist() == expected.tolist()
    assert np.allclose(drawn[order, 3], renorm[renorm >= 0.01], atol=1e-5)
    assert view.head_view.token_rect("query", 0) is None  # [CLS] is hidden

    # Leaving the token draws every line again (a small sentence: all of them fit)
    qtbot.mouseMove(view.head_view, view.head_view.rect().center())
    qtbot.waitUntil(lambda: view.head_view.hovered() is None, timeout=3000)
    view.head_view.repaint()
    assert len(view.head_view.drawn_lines()) == view.head_view.total_line_count() > len(drawn)


def test_many_void_qt_calls_do_not_crash_the_interpreter():
    """PySide6 6.12.0 on Python < 3.12 loses a reference to None per void call and aborts after ~10^5.

    The lock pins an unaffected build and lm_workbench.ui.qt_refcount_fix guards against an affected one; either
    way, a process that makes 300,000 void calls after importing the views must survive.
    """
    import subprocess
    import sys

    code = (
        "import lm_workbench.ui.attention.attention_view\n"
        "from PySide6.QtCore import QRectF\n"
        "r = QRectF()\n"
        "for _ in range(300_000): r.setWidth(1.0)\n"
        "print('alive')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and "alive" in result.stdout, result.stderr[-500:]

def test_grid_click_selects_layer_and_head_and_heatmap_shows_values(make_window, qtbot):
    window = make_window("minilm")
    view = window.view("attention")
    window.text_input.set_text(SENTENCE)
    _wait_encoded(qtbot, view, SENTENCE)
    assert view.grid.shape() == (6, 12)
    qtbot.mouseClick(view.grid, Qt.MouseButton.LeftButton, pos=view.grid.cell_rect(3, 7).center().toPoint())
    assert view.controls.layer_spin.value() == 3 and view.controls.heads.heads() == [7]
    assert set(view.head_view.lines().head.tolist()) == {7}

    ref = plain_forward(window.loaded.info.folder, SENTENCE)["attentions"][3, 7]
    matrix = view.heatmap.matrix()
    assert np.allclose(matrix, ref, atol=1e-5)
    assert "Layer 3, head 7" in view.heatmap.title()
    q, k = 4, 1
    qtbot.mouseMove(view.heatmap, view.heatmap.cell_rect(q, k).center().toPoint())
    qtbot.waitUntil(lambda: "query 4" in view.heatmap.hover_text(), timeout=3000)
    assert view.heatmap.hover_text().endswith(f"{ref[q, k]:.4f}")
    assert "(key 1)" in view.heatmap.hover_text()

    qtbot.mouseClick(view.grid, Qt.MouseButton.LeftButton, pos=view.grid.cell_rect(1, MEAN).center().toPoint())
    assert view.controls.layer_spin.value() == 1 and view.controls.heads.heads() == list(range(12))
    mean = plain_forward(window.loaded.info.folder, SENTENCE)["attentions"][1].mean(axis=0)
    assert np.allclose(view.heatmap.matrix(), mean, atol=1e-5)


def test_exports_head_csv_tensor_and_pictures(make_window, qtbot, tmp_path):
    window = make_window("minilm")
    view = window.view("attention")
    window.text_input.set_text(SENTENCE)
    _wait_encoded(qtbot, view, SENTENCE)
    view.select_cell(1, 3)
    csv_path = view.export_head_csv(tmp_path / "head.csv")
    with open(csv_path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    tokens = view.side().query_tokens
    assert rows[0][1:] == tokens and [r[0] for r in rows[1:]] == tokens
    values = np.array([[float(v) for v in r[1:]] for r in rows[1:]])
    assert np.allclose(values, view.side().weights[1, 3], atol=1e-7)
    assert np.allclose(values, plain_forward(window.loaded.info.folder, SENTENCE)["attentions"][1, 3], atol=1e-5)

    npy = view.export_tensor(tmp_path / "attention.npy")
    tensor = np.load(npy)
    assert tensor.shape == (6, 12, len(tokens), len(tokens))
    assert np.array_equal(tensor, view.side().weights)

    png = view.export_picture("head", tmp_path / "head.png")
    assert not QImage(str(png)).isNull()
    svg = view.export_picture("heatmap", tmp_path / "heatmap.svg").read_text(encoding="utf-8")
    assert "<svg" in svg and "bank" in svg
    assert window.status.message().startswith("Saved")


def test_encoder_decoder_cross_and_causal_decoder_attention(make_window, qtbot, tiny_models):
    folder = str(tiny_models["bart"])
    window = make_window(folder)
    view = window.view("attention")
    controls = view.controls
    text, target = "The statement is true.", "A target text is here."
    window.text_input.set_text(text)
    _wait_encoded(qtbot, view, text)
    assert controls.kind_combo.isEnabled() and controls.target_edit.isVisible()
    assert "greedy" in controls.kind_note.text()
    qtbot.keyClicks(controls.target_edit, target)
    qtbot.waitUntil(lambda: view.encoding().decoder is not None and not view.encoding().decoder.from_greedy,
                    timeout=WAIT)
    assert "target" in controls.kind_note.text()
    ref = plain_forward(folder, text, target=target)

    controls.kind_combo.setCurrentIndex(controls.kind_combo.findData("cross"))
    side = view.side()
    assert side.query_tokens == view.encoding().decoder.tokens and side.key_tokens == view.encoding().tokens
    view.select_cell(1, 2)
    assert view.heatmap.matrix().shape == (len(side.query_tokens), len(side.key_tokens))
    assert np.allclose(view.heatmap.matrix(), ref["cross_attentions"][1, 2], atol=1e-5)

    controls.kind_combo.setCurrentIndex(controls.kind_combo.findData("decoder"))
    view.select_cell(0, 1)
    matrix = view.heatmap.matrix()
    assert matrix.shape[0] == matrix.shape[1] == len(ref["decoder_ids"]) > 3
    assert np.triu(matrix, 1).max() == 0.0  # causal: no weight on later tokens
    assert np.allclose(matrix, ref["decoder_attentions"][0, 1], atol=1e-5)


def test_hide_special_toggle_uses_the_grid_computed_off_the_gui_thread(make_window, qtbot):
    """The grid's mosaics (with and without special tokens) come with the encoding from the worker job."""
    from lm_workbench.engine.attention_grid import grid_values

    window = make_window("minilm")
    view = window.view("attention")
    window.text_input.set_text(SENTENCE)
    _wait_encoded(qtbot, view, SENTENCE)
    assert set(view.state.mosaics) == {("encoder", False), ("encoder", True)}
    hidden, _t = view.state.mosaics[("encoder", True)]
    expected, _ = grid_values(view.side(), hide=True)  # an independent recomputation
    assert np.allclose(hidden, expected)
    plain, _ = view.state.mosaics[("encoder", False)]
    assert hidden.shape != plain.shape  # two special tokens fewer on each side
    assert np.allclose(plain, grid_values(view.side(), hide=False)[0])


def test_thirty_two_heads_fit_the_default_window_with_export_visible(open_window, qtbot, tmp_path):
    """A 1.1B Llama's 32 heads: the head toggles scroll in their own row; nothing widens the view past the window."""
    from tests.support.tiny_models import build_many_heads_decoder
    from lm_workbench.ui import theme

    folder = build_many_heads_decoder(tmp_path / "heads32")
    size = theme.current().metrics.window_size
    window = open_window(str(folder), "attention", size=size)
    view = window.view("attention")
    window.text_input.editor.setPlainText(SENTENCE)
    _wait_encoded(qtbot, view, SENTENCE)
    controls = view.controls
    assert controls.heads.heads() == list(range(32))
    qtbot.waitUntil(lambda: controls.export_button.isVisible(), timeout=WAIT)
    export = controls.export_button
    corner = export.mapTo(window, export.rect().bottomRight())
    assert (window.width(), window.height()) == tuple(size)  # the view did not force the window wider
    assert 0 <= corner.x() <= window.width() and export.width() > 0  # Export on screen, whole
    assert view.minimumSizeHint().width() <= view.width() <= window.width()
    picker = controls.heads
    qtbot.waitUntil(lambda: picker.scroll.horizontalScrollBar().maximum() > 0, timeout=3000)  # more than fit
    last = picker.button(31)
    picker.ensure_visible(31)
    qtbot.waitUntil(lambda: last.mapTo(picker.scroll.viewport(), last.rect().topRight()).x()
                    <= picker.scroll.viewport().width(), timeout=3000)
    qtbot.mouseClick(last, Qt.MouseButton.LeftButton)
    assert controls.heads.heads() == [31]


def test_the_attention_view_says_what_it_cuts(tiny_models):
    from lm_workbench.engine.analysis import encode
    from lm_workbench.engine.models.loading import load_source as load_model
    from lm_workbench.ui.attention.attention_view import capped_note

    gpt2 = load_model(str(tiny_models["gpt2"]))

    cut = encode(gpt2, SENTENCE, attentions=True, max_tokens=6)
    assert len(cut.tokens) == 6 and cut.attentions.shape[-1] == 6
    n = cut.tokenized.full_length  # a decoder reads the last window (issue 42): the view says which tokens
    assert capped_note(cut).startswith(f"Showing the last 6 of {n} tokens (tokens {n - 5}–{n} of {n}")
    bert = load_model(str(tiny_models["bert"]))  # an encoder without a mask: the first window
    first = encode(bert, SENTENCE, attentions=True, max_tokens=6)
    assert first.tokens[0] == "[CLS]" and first.tokens[-1] == "[SEP]"
    assert capped_note(first).startswith(f"Showing the first 6 of {first.tokenized.full_length} tokens (tokens 1–4 of")
    assert capped_note(encode(gpt2, "The cat.", attentions=True, max_tokens=6)) is None


@pytest.mark.parametrize("kind, label", [("gpt2", "Self-attention (causal)"), ("bert", "Self-attention (bidirectional)"),
                                         ("bart", "Encoder self-attention")])
def test_the_self_attention_is_named_as_the_model_s_family_has_it(open_window, qtbot, tiny_models, kind, label):
    """GPT-2's attention read "Encoder self-attention" (issue 36); a decoder-only model's is causal."""
    window = open_window(str(tiny_models[kind]), "attention")
    window.text_input.set_text("The bank raised rates.")
    view = window.view("attention")
    qtbot.waitUntil(lambda: view.encoding() is not None, timeout=WAIT)
    assert view.controls.kind_combo.itemText(0) == label
