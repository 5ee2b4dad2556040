"""The Patching tab with a tiny BART loaded, through the real widgets: the site chooser lists the encoder-
decoder's sites, the output position row shows, a cross-attention sweep fills the heatmap with the decoder's
tokens as columns (the greedy prefix decoded here), and loading a decoder-only model takes those sites away."""

from __future__ import annotations

import html
import os

import numpy as np
import pytest
import torch

from lm_workbench.engine.models.loading import load_source as load_model
from lm_workbench.engine.patching.names import ENCODER_DECODER_SITES, SITES

pytestmark = pytest.mark.timeout(120)

WAIT = 30000
CLEAN, CORRUPT = "The name of the", "The value of the"
POSITION = 2


def _decoder_prefix(model, tokenizer) -> list[str]:
    """The start token and the first POSITION greedy output tokens, decoded here with full forward passes."""
    ids = torch.tensor([tokenizer(CLEAN)["input_ids"]])
    decoder = torch.tensor([[model.config.decoder_start_token_id]])
    with torch.no_grad():
        for _ in range(POSITION):
            nxt = model(input_ids=ids, decoder_input_ids=decoder).logits[0, -1].argmax()
            decoder = torch.cat([decoder, nxt.view(1, 1)], dim=1)
    return tokenizer.convert_ids_to_tokens(decoder[0].tolist())


def _columns(view, row: int, axis: str) -> list[str]:
    """Each column's label as the heatmap's hover line gives it ("layer r · TOKEN (AXIS k): value")."""
    labels = []
    for k in range(view.heatmap.matrix().shape[1]):
        tip = view.heatmap.part_tip((row, k))
        assert f"({axis} {k})" in tip, tip
        labels.append(tip.split(" · ", 1)[1].rsplit(f" ({axis} {k})", 1)[0])
    return labels


def test_a_cross_attention_sweep_on_a_tiny_bart(open_window, qtbot, tiny_models):
    from lm_workbench.engine.patching.tracing import patch
    from lm_workbench.ui.widgets.token_layout import display_label

    folder = str(tiny_models["bart"])
    window = open_window(folder, "patching", size=(1280, 720))
    view = window.view("patching")
    offered = [view.site_combo.itemData(i) for i in range(view.site_combo.count())]
    assert sorted(offered) == sorted(ENCODER_DECODER_SITES) and view.output_spin.isVisibleTo(view)
    view.set_inputs(CLEAN, CORRUPT, "Ġlist", "Ġclass")
    view.site_combo.setCurrentIndex(view.site_combo.findData("cross-attn"))
    view.output_spin.setValue(POSITION)
    assert view.state.request().site == "cross-attn" and view.state.request().output_position == POSITION
    view.run_button.click()
    qtbot.waitUntil(lambda: not view.state.running and view.state.result is not None, timeout=WAIT)
    assert view.progress.value() == view.progress.maximum()  # full, even when the sweep had nothing to do
    loaded = load_model(folder)
    decoder = _decoder_prefix(loaded.model, loaded.tokenizer)
    # the columns: the decoder's tokens, not the encoder's (what hovering a cell says)
    assert _columns(view, 0, "decoder token") == [display_label(t) for t in decoder]
    expected = patch(loaded, CLEAN, CORRUPT, "Ġlist", "Ġclass", "cross-attn", output_position=POSITION)
    shown = view.heatmap.matrix()
    assert shown.shape == (2, POSITION + 1) and np.isfinite(shown).all()
    np.testing.assert_allclose(shown, np.array(expected.effect), atol=1e-6)
    summary = view.summary.text()
    assert f"output position {POSITION}" in summary and "site cross-attn" in summary
    assert f"the decoder reads {html.escape(' '.join(display_label(t) for t in decoder))}" in summary
    if os.environ.get("LM_WORKBENCH_SHOTS"):
        window.grab().save(os.path.join(os.environ["LM_WORKBENCH_SHOTS"], "patching-bart-cross-attn.png"))
    # the encoder's residual stream: a column per encoder token
    view.site_combo.setCurrentIndex(view.site_combo.findData("enc-resid"))
    view.run_button.click()
    qtbot.waitUntil(lambda: not view.state.running and view.state.result.site == "enc-resid", timeout=WAIT)
    encoder = loaded.tokenizer.convert_ids_to_tokens(loaded.tokenizer(CLEAN)["input_ids"])
    assert _columns(view, 1, "encoder token") == [display_label(t) for t in encoder]
    assert view.preset_state()[0]["output_position"] == POSITION
    # a decoder-only model: its three sites, no output position, the site back to resid
    window.load_model(str(tiny_models["gpt2"]))
    qtbot.waitUntil(lambda: view.site_combo.count() == len(SITES), timeout=WAIT)
    assert [view.site_combo.itemData(i) for i in range(view.site_combo.count())] == list(SITES)
    assert not view.output_spin.isVisibleTo(view) and view.state.site == "resid"
    assert view.state.request().output_position == 0
    # a workspace or a preset restored while that model still loads: the site waits for a model that has it
    view.apply_preset_step({"site": "cross-attn", "output_position": 1}, {})
    assert view.state.site == "resid"
    window.load_model(folder)
    qtbot.waitUntil(lambda: view.site_combo.count() == len(ENCODER_DECODER_SITES), timeout=WAIT)
    assert view.site_combo.currentData() == view.state.site == "cross-attn"
    assert view.state.request().output_position == 1 and view.output_spin.isVisibleTo(view)
