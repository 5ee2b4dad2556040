"""The Features tab steering with contrastive pairs, no SAE anywhere, with the real widgets on the tiny GPT-2: two
pairs typed, a site picked, Steer: the steered and unsteered next-token distributions shown equal a plain forward
hook written here adding strength × the mean over pairs of (the block's output at the positive prompt's last token
− at the negative's); Layer grid: a cell at another block equals the pairs averaged again at that block; bad input
says one line in the view's message area; a model change leaves no result up. A screenshot is written when
LM_WORKBENCH_SHOTS names a folder."""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch

pytestmark = pytest.mark.timeout(120)

WAIT = 30000
TEXT = "The cat sat on the mat"
PAIRS = [("I love this film", "I hate this film"), ("What a great day", "What an awful day")]
SITE = "blocks.0.hook_resid_post"
STRENGTH = 4.0


def _output(o):
    return o[0] if isinstance(o, tuple) else o


def _last_token_output(model, tok, block, text: str) -> torch.Tensor:
    got = {}

    def keep(m, i, o):
        got["x"] = _output(o)[0, -1].clone()

    handle = block.register_forward_hook(keep)
    with torch.no_grad():
        model(**tok(text, return_tensors="pt"))
    handle.remove()
    return got["x"]


def _logits(model, tok, block=None, vector=None) -> torch.Tensor:
    """The next-token logits after TEXT, ``vector`` added to ``block``'s output at every position."""
    def add(m, i, o):
        return (o[0] + vector,) + tuple(o[1:]) if isinstance(o, tuple) else o + vector

    handle = block.register_forward_hook(add) if block is not None else None
    with torch.no_grad():
        out = model(**tok(TEXT, return_tensors="pt")).logits[0, -1]
    if handle is not None:
        handle.remove()
    return out


def test_steering_with_typed_pairs(open_window, qtbot, tiny_models, tmp_path):
    import transformers as tf
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication, QMessageBox

    folder = str(tiny_models["gpt2"])
    window = open_window(folder, "features", about=False, size=(1024, 768))
    view = window.view("features")
    window.text_input.set_text(TEXT)
    qtbot.waitUntil(lambda: window.tokenized is not None and window.tokenized.text == TEXT, timeout=WAIT)
    form = view.pairs_form
    view.direction_combo.setCurrentIndex(view.direction_combo.findText("Contrastive pairs"))
    assert form.isVisible() and not view.sae_box.isVisible()
    assert not view.show_button.isEnabled() and view.steer_button.isEnabled() and view.grid_button.isEnabled()
    assert form.site_combo.currentText() == "blocks.1.hook_resid_post"  # the middle of 2 blocks
    assert "blocks.0.hook_mlp_out" in [form.site_combo.itemText(i) for i in range(form.site_combo.count())]
    form.pairs_edit.setFocus()
    for positive, negative in PAIRS:  # typed: Tab inserts the tab, Return starts the next pair
        qtbot.keyClicks(form.pairs_edit, positive)
        qtbot.keyClick(form.pairs_edit, Qt.Key.Key_Tab)
        qtbot.keyClicks(form.pairs_edit, negative)
        qtbot.keyClick(form.pairs_edit, Qt.Key.Key_Return)
    assert view.state.pairs_text == "".join(f"{p}\t{n}\n" for p, n in PAIRS)
    form.site_combo.setCurrentText(SITE)
    view.strength_spin.setValue(STRENGTH)
    qtbot.mouseClick(view.steer_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.state.steering is not None or view.notice.level() == "warning", timeout=WAIT)
    assert view.state.steering is not None, view.notice.text()

    model = tf.AutoModelForCausalLM.from_pretrained(folder).eval()
    tok = tf.AutoTokenizer.from_pretrained(folder)

    def direction(block):
        return torch.stack([_last_token_output(model, tok, block, p) - _last_token_output(model, tok, block, n)
                            for p, n in PAIRS]).mean(0)

    block0 = model.transformer.h[0]
    clean = _logits(model, tok).softmax(-1)
    steered = _logits(model, tok, block0, STRENGTH * direction(block0)).softmax(-1)
    result = view.state.steering
    for side, probs in ((result.steered, steered), (result.unsteered, clean)):
        assert [c["id"] for c in side.top] == probs.topk(5).indices.tolist()
        np.testing.assert_allclose([c["probability"] for c in side.top], probs.topk(5).values.numpy(), atol=1e-5)
    shown = view.steering.text()
    assert f"{steered.max():.3f}" in shown and f"{clean.max():.3f}" in shown
    kl = float((clean * (clean.log() - steered.log())).sum())
    assert result.kl == pytest.approx(kl, rel=1e-3) and kl > 1e-3, kl  # the vector did change the prediction
    line = view.state.steer_line()
    for part in (os.path.basename(folder), repr(TEXT), "contrastive pairs (2 pairs, typed pairs)", f"× 4 at {SITE}"):
        assert part in line, (part, line)

    qtbot.mouseClick(view.grid_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.state.grid is not None, timeout=WAIT)
    matrix = view.grid_map.matrix()
    grid = view.state.grid
    assert matrix.shape == (2, 6) and np.isfinite(matrix).all() and np.abs(matrix).max() > 0
    np.testing.assert_allclose(matrix[:, grid.strengths.index(0.0)], 0.0, atol=1e-5)
    block1 = model.transformer.h[1]  # not the chosen site: the pairs averaged again at block 1's own output
    lp = _logits(model, tok).log_softmax(-1)
    lq = _logits(model, tok, block1, 2 * STRENGTH * direction(block1)).log_softmax(-1)
    [cell] = [c for c in grid.cells if c.layer == 1 and c.strength == 2 * STRENGTH]
    assert cell.kl == pytest.approx(float((lp.exp() * (lp - lq)).sum()), rel=1e-4, abs=1e-6)
    assert "contrastive pairs (2 pairs, typed pairs)" in view.grid_line.text()
    if os.environ.get("LM_WORKBENCH_SHOTS"):
        window.grab().save(os.path.join(os.environ["LM_WORKBENCH_SHOTS"], "features-pairs-1024.png"))

    # bad input: one line in the view's message area, never a dialog; the result shown stays
    (tmp_path / "bytes.tsv").write_bytes(b"caf\xe9\tbar\n")
    (tmp_path / "good.tsv").write_text("up\tdown\n", encoding="utf-8")
    rows = [("", "", "No pairs: type lines 'positive<TAB>negative'"),
            ("I love this film I hate this film", "", "typed pairs line 1: a pair is 'positive<TAB>negative'"),
            ("", str(tmp_path / "missing.tsv"), "pairs file not found"),
            ("", str(tmp_path / "bytes.tsv"), "bytes.tsv"),
            ("a\tb", str(tmp_path / "good.tsv"), "both typed and named as a file")]
    for typed, file, message in rows:
        form.set_values(text=typed, file=file)
        view.notice.clear_message()
        qtbot.mouseClick(view.steer_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: message in view.notice.text(), timeout=WAIT)
        assert view.notice.level() == "warning" and view.state.steering is result
    assert not [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()]

    form.set_values(text="", file=str(tmp_path / "good.tsv"))  # a file: named in the line by its name
    qtbot.mouseClick(view.steer_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.state.steering is not result, timeout=WAIT)
    assert "contrastive pairs (1 pair, good.tsv)" in view.steering.text()

    llama = str(tiny_models["llama"])  # a model change: nothing of the GPT-2's stays up
    window.load_model(llama)
    qtbot.waitUntil(lambda: window.loaded is not None and "llama" in str(window.loaded.info.spec), timeout=WAIT)
    assert view.state.steering is None and view.state.grid is None and view.steering.text() == ""
    assert view.grid_map.matrix() is None and form.site_combo.currentText() == SITE


def test_a_lecture_step_or_workspace_steers_with_pairs(open_window, qtbot, tiny_models):
    """``direction: pairs`` in a step's settings: the pairs (a list, as a preset file writes them), site and
    strength applied and Steer run; ``preset_state`` gives back what a workspace keeps, and applying it again
    restores the mode; a step without ``direction`` returns to the SAE feature."""
    folder = str(tiny_models["gpt2"])
    window = open_window(folder, "features", about=False, size=(1024, 768))
    view = window.view("features")
    window.text_input.set_text(TEXT)
    qtbot.waitUntil(lambda: window.tokenized is not None and window.tokenized.text == TEXT, timeout=WAIT)
    view.apply_preset_step({"direction": "pairs", "pairs": [list(p) for p in PAIRS], "site": SITE,
                            "strength": STRENGTH, "show": "steer"}, {})
    qtbot.waitUntil(lambda: view.state.steering is not None or view.notice.level() == "warning", timeout=WAIT)
    assert view.state.steering is not None, view.notice.text()
    assert view.pairs_form.isVisible() and view.pairs_form.site_combo.currentText() == SITE
    assert f"× 4 at {SITE}" in view.state.steer_line() and "2 pairs" in view.state.steer_line()
    assert "pairs' direction" in view.grid_map.empty_hint  # the empty grid does not speak of an SAE feature
    shown = view.steering.text()  # each continuation on its own named line (side by side they ran together)
    assert "<b>unsteered continues:</b>" in shown and "<b>steered continues:</b>" in shown
    settings, _ = view.preset_state()
    assert {k: settings[k] for k in ("direction", "pairs_file", "site", "concept", "strength")} == {
        "direction": "pairs", "pairs_file": "", "site": SITE, "concept": "", "strength": STRENGTH}
    assert settings["pairs"].strip() == "\n".join(f"{p}\t{n}" for p, n in PAIRS)
    view.apply_preset_step({"strength": 2.0}, {})  # a step of the SAE kind: the feature direction again
    assert view.direction_combo.currentData() == "feature" and not view.pairs_form.isVisible()
    assert "the feature works" in view.grid_map.empty_hint
    view.apply_preset_step(settings, {})  # the workspace's pairs come back
    assert view.direction_combo.currentData() == "pairs" and view.state.pairs_site == SITE
    assert view.state.pairs_text.strip() == "\n".join(f"{p}\t{n}" for p, n in PAIRS)
    with pytest.raises(ValueError, match="pairs is lines"):
        view.apply_preset_step({"direction": "pairs", "pairs": ["no tab here"]}, {})
