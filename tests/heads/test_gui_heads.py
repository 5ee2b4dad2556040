"""The Heads tab with the real widgets: the direct logit attribution map and bars add up to the model's own
logit difference taken here by a plain forward pass; the sweep's cells equal forward passes with a head zeroed
by a hook written here; a post-norm model gets its one line."""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch

pytestmark = pytest.mark.timeout(120)

WAIT = 30000
TEXT = "The cat sat on the"


def _logits(model, ids, hook=None):
    handle = model.transformer.h[1].attn.c_proj.register_forward_pre_hook(hook) if hook else None
    try:
        with torch.no_grad():
            return model(input_ids=torch.tensor([ids])).logits[0, -1]
    finally:
        if handle is not None:
            handle.remove()


def test_dla_and_the_sweep_in_the_tab(open_window, qtbot, tiny_models):
    import transformers as tf

    folder = str(tiny_models["gpt2"])
    window = open_window(folder, "heads")
    view = window.view("heads")
    window.text_input.set_text(TEXT)
    view.set_inputs("Ġthe", "Ġa")
    view.inputs_changed.emit()  # what leaving the field does: the split follows
    qtbot.waitUntil(lambda: view.state.dla is not None and view.state.dla.contrast == "Ġa", timeout=WAIT)
    model = tf.AutoModelForCausalLM.from_pretrained(folder).eval()
    tok = tf.AutoTokenizer.from_pretrained(folder)
    ids = tok(TEXT)["input_ids"]
    x, y = tok.convert_tokens_to_ids(["Ġthe", "Ġa"])
    logits = _logits(model, ids)
    difference = float(logits[x] - logits[y])
    shown = view.dla_map.matrix()
    assert shown.shape == (2, 4)
    bars = view.bars.heights
    np.testing.assert_allclose(bars["attn"], shown.sum(1), atol=1e-9)
    parts = sum(bars["attn"]) + sum(bars["mlp"]) + sum(bars["ends"])  # heads, MLPs, embeddings and biases
    assert parts == pytest.approx(difference, abs=1e-4)
    assert f"{difference:.3f}" in view.dla_summary.text() and "frozen" in view.dla_summary.text()

    view.sweep_button.click()
    qtbot.waitUntil(lambda: not view.state.running and view.state.sweep is not None, timeout=WAIT)

    def zero_head(head):
        def hook(_module, args):
            z = args[0].clone()
            z[..., head * 8:(head + 1) * 8] = 0.0
            return (z,)
        return hook

    change = view.sweep_map.matrix()
    for head in range(4):
        ablated = _logits(model, ids, zero_head(head))
        assert change[1, head] == pytest.approx(float(ablated[x] - ablated[y]) - difference, abs=1e-5)
    assert view.sweep_button.isEnabled() and not view.cancel_button.isEnabled()
    assert view.progress.value() == view.progress.maximum()  # a finished sweep's bar is full
    assert view.preset_state()[0] == {"target": "Ġthe", "contrast": "Ġa", "how": "zero", "corpus": "",
                                      "ablate": True}
    if os.environ.get("LM_WORKBENCH_SHOTS"):
        view.grab().save(os.path.join(os.environ["LM_WORKBENCH_SHOTS"], "heads.png"))


def test_a_post_norm_model_says_why_and_still_ablates(open_window, qtbot, tiny_models):
    window = open_window(str(tiny_models["bert"]), "heads")
    view = window.view("heads")
    window.text_input.set_text("The cat [MASK] on the mat")
    qtbot.waitUntil(lambda: bool(view.state.dla_note), timeout=WAIT)
    assert "not a sum" in view.dla_summary.text() and view.dla_map.matrix() is None
    view.sweep_button.click()
    qtbot.waitUntil(lambda: not view.state.running and view.state.sweep is not None, timeout=WAIT)
    assert view.sweep_map.matrix().shape == (2, 4)
    view.set_inputs(how="mean")
    view.sweep_button.click()
    assert "corpus" in view.notice.text()


def test_cancel_keeps_the_rows_done(open_window, qtbot, tiny_models, monkeypatch):
    import threading

    from lm_workbench.engine.progress import Partial
    from lm_workbench.ui.heads import heads_view

    real = heads_view.sweep_job

    def held(loaded, request, cancel):
        """The real sweep, held after its first row until Cancel arrives (the tiny model is too quick)."""
        gen = real(loaded, request, cancel)
        while True:
            try:
                report = next(gen)
            except StopIteration as stop:
                return stop.value
            yield report
            if isinstance(report, Partial):
                for _ in range(200):
                    if cancel.cancelled:
                        break
                    threading.Event().wait(0.05)

    monkeypatch.setattr(heads_view, "sweep_job", held)
    window = open_window(str(tiny_models["gpt2"]), "heads")
    view = window.view("heads")
    window.text_input.set_text(TEXT)
    qtbot.waitUntil(lambda: view.state.dla is not None, timeout=WAIT)
    view.state.events.sweep_changed.connect(
        lambda: view.cancel() if view.state.running and view.state.rows_done() == 1 else None)
    view.sweep_button.click()
    qtbot.waitUntil(lambda: not view.state.running and "Cancelled" in view.notice.text(), timeout=WAIT)
    shown = view.sweep_map.matrix()
    assert np.isfinite(shown[0]).all() and np.isnan(shown[1]).all()
    assert view.sweep_button.isEnabled() and not view.cancel_button.isEnabled()


def test_an_encoder_decoder_s_output_position_in_the_tab(open_window, qtbot, tiny_models):
    """T5 (a pre-norm decoder): the Output position row shows, and the split at output position 1 is of the logit
    the model gives there, reading its own first greedy output token (computed here by plain forward passes)."""
    import transformers as tf

    folder = str(tiny_models["t5"])
    window = open_window(folder, "heads")
    view = window.view("heads")
    assert not view.output_row.isHidden()
    text = "translate: the cat sat"
    window.text_input.set_text(text)
    view.output_spin.setValue(1)
    qtbot.waitUntil(lambda: view.state.dla is not None and view.state.request(text).output_position == 1
                    and view.state.dla.position == 1, timeout=WAIT)
    model = tf.AutoModelForSeq2SeqLM.from_pretrained(folder).eval()
    tok = tf.AutoTokenizer.from_pretrained(folder)
    ids = torch.tensor([tok(text)["input_ids"]])
    start = model.config.decoder_start_token_id
    with torch.no_grad():
        first = int(model(input_ids=ids, decoder_input_ids=torch.tensor([[start]])).logits[0, -1].argmax())
        logits = model(input_ids=ids, decoder_input_ids=torch.tensor([[start, first]])).logits[0, -1]
    top = int(logits.argmax())
    dla = view.state.dla
    assert dla.target == tok.convert_ids_to_tokens(top)
    assert dla.total == pytest.approx(float(logits[top]), abs=1e-4)
    assert view.preset_state()[0]["output_position"] == 1

    window.load_model(str(tiny_models["gpt2"]))  # a decoder-only model: no output position
    qtbot.waitUntil(lambda: window.loaded is not None and window.loaded.info.family == "decoder", timeout=WAIT)
    assert view.output_row.isHidden() and view.state.output_position == 0
