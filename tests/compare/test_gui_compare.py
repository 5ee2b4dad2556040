"""Two models side by side in the window: "Compare with…" loads B through the model panel, the views show
A | B, the Compare tab's CKA heatmap, Stop comparing."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import torch
from PySide6.QtCore import Qt

from lm_workbench.engine.compare.cka import layer_cka
from lm_workbench.engine.models.loading import load_source as load_model


TEXT = "The cat sat on the mat, unbelievably."
WAIT = 30000


def test_compare_with_a_second_model_shows_a_and_b(open_window, tiny_models, qtbot, tmp_path):
    screenshots = Path(os.environ.get("LMWB_SCREENSHOTS", tmp_path))
    bert, gpt2 = str(tiny_models["bert"]), str(tiny_models["gpt2"])
    window = open_window(bert, "tokens")
    window.text_input.set_text(TEXT)
    panel = window.compare.panel
    qtbot.keyClicks(panel.field, gpt2)
    qtbot.mouseClick(panel.compare_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.compare.loaded is not None, timeout=WAIT)
    assert window.view_host.context("tokens").model_b is window.compare.loaded

    tokens = window.view("tokens")
    own = lambda tok: tok.convert_ids_to_tokens(tok(TEXT)["input_ids"])  # noqa: E731  each model's own tokenizer
    want_a, want_b = own(window.loaded.tokenizer), own(window.compare.loaded.tokenizer)
    qtbot.waitUntil(lambda: tokens.view.tokens() == want_a and tokens.view_b.tokens() == want_b, timeout=WAIT)
    assert want_a != want_b  # WordPiece and BPE cut the text differently
    assert tokens.split.comparing() and tokens.split.title_b.isVisible()
    window.grab().save(str(screenshots / "compare_tokens.png"))

    window.show_view("attention")
    attention = window.view("attention")
    qtbot.waitUntil(lambda: attention.b.side is not None and attention.encoding() is not None, timeout=WAIT)
    assert attention.ab.comparing() and attention.b.head_view.isVisible()
    b = window.compare.loaded
    with torch.no_grad(), b.attention_implementation("eager"):  # B's own attention on the text, computed here
        own_b = b.model(**b.tokenizer(TEXT, return_tensors="pt"), output_attentions=True).attentions
    np.testing.assert_allclose(attention.b.side.weights, torch.stack(own_b)[:, 0].numpy(), atol=1e-5)
    # Every panel says whose it is, and B's title counts B's own layers and heads (issue 36, item 8)
    attention.controls.heads.set_heads([1])
    qtbot.waitUntil(lambda: f"head 1 of {own_b[0].shape[1]}" in attention.ab.title_b.text(), timeout=WAIT)
    assert f"layer 0 of {len(own_b)}" in attention.ab.title_b.text()
    assert attention.grid_title.isVisible() and attention.grid_title.text() == f"A: {Path(bert).name}"
    assert attention.heatmap.title().startswith("A · Layer 0")
    qtbot.waitUntil(lambda: not attention.head_scroll.horizontalScrollBar().isVisible()
                    and not attention.b.scroll.horizontalScrollBar().isVisible(), timeout=3000)  # "Key (to)" shows
    window.grab().save(str(screenshots / "compare_attention.png"))

    window.show_view("compare")
    compare = window.view("compare")
    qtbot.waitUntil(lambda: compare.heatmap.matrix() is not None, timeout=WAIT)
    expected = layer_cka(load_model(bert), load_model(gpt2), [TEXT]).cka  # fresh copies, outside the window
    np.testing.assert_allclose(compare.heatmap.matrix(), expected, atol=1e-6)
    assert compare.heatmap.matrix().shape == (window.loaded.info.layers + 1, window.compare.loaded.info.layers + 1)

    qtbot.mouseClick(panel.stop_button, Qt.MouseButton.LeftButton)
    assert window.compare.loaded is None and window.view_host.context("tokens").model_b is None
    assert not tokens.split.comparing()
    qtbot.waitUntil(lambda: compare.heatmap.matrix() is None, timeout=WAIT)  # the Compare tab says how to compare


def test_compare_with_a_finished_run_from_the_runs_tab(open_window, tiny_models, qtbot, fresh_home, tmp_path):
    import shutil

    from lm_workbench.paths import runs_db_path
    from lm_workbench.store.run_store import RunStore

    out = tmp_path / "run"
    shutil.copytree(tiny_models["bert"], out / "model")  # a pre-training run's folder: its model in model/
    store = RunStore(runs_db_path())
    done = store.create_run("pretrain", name="course bert", model="bert", method="mlm", params={"out_dir": str(out)})
    store.start_run(done, pid=None)
    store.finish_run(done, "finished")
    running = store.create_run("pretrain", name="still going", model="bert", method="mlm",
                               params={"out_dir": str(out)})
    store.start_run(running, pid=None)
    store.close()
    window = open_window(str(tiny_models["bert"]), "runs")
    browser = window.view("runs")
    qtbot.waitUntil(lambda: browser.model.rowCount() == 2, timeout=WAIT)
    browser.select_runs([running])
    assert not browser.compare_button.isEnabled()  # no finished model yet
    browser.select_runs([done])
    assert browser.compare_button.isEnabled()
    qtbot.mouseClick(browser.compare_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.compare.loaded is not None, timeout=WAIT)
    assert Path(window.compare.loaded.info.folder).resolve() == (out / "model").resolve()
    assert window.compare.panel.stop_button.isEnabled()
