"""The Lens view while comparing: B's logit-lens table beside A's, against B's layers read through its final
norm and head here with plain transformers and torch; A keeps its own table."""

from __future__ import annotations

import torch
from PySide6.QtCore import Qt
from transformers import AutoModelForCausalLM, AutoTokenizer

TEXT = "The cat sat on the mat."
WAIT = 30000


def test_lens_shows_b_beside_a(open_window, tiny_models, qtbot):
    window = open_window(str(tiny_models["bert"]), "lens")
    window.text_input.set_text(TEXT)
    view = window.view("lens")
    qtbot.waitUntil(lambda: view.model.table() is not None, timeout=WAIT)
    assert not view.ab.comparing()
    panel = window.compare.panel
    qtbot.keyClicks(panel.field, str(tiny_models["gpt2"]))
    qtbot.mouseClick(panel.compare_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.ab.comparing() and view.model_b.table() is not None, timeout=WAIT)
    assert view.reason_b() == "" and view.table_b.isVisible()

    folder = tiny_models["gpt2"]  # B's top 1 per layer and position: hidden state -> ln_f -> lm_head -> softmax
    tok = AutoTokenizer.from_pretrained(folder)
    gpt2 = AutoModelForCausalLM.from_pretrained(folder).eval()
    ids = tok(TEXT, return_tensors="pt")["input_ids"]
    with torch.no_grad():
        hidden = gpt2(input_ids=ids, output_hidden_states=True).hidden_states
        probs = [gpt2.lm_head(gpt2.transformer.ln_f(h[0]) if i < len(hidden) - 1 else h[0]).softmax(-1)
                 for i, h in enumerate(hidden)]  # the last hidden state is already normed by transformers
    want = torch.stack(probs).max(-1)
    table = view.model_b.table()
    assert table.tokens == tok.convert_ids_to_tokens(ids[0].tolist())
    assert len(table.layer_names) == gpt2.config.n_layer + 1
    assert [[cell[0].id for cell in row] for row in table.top] == want.indices.tolist()
    torch.testing.assert_close(torch.tensor([[cell[0].prob for cell in row] for row in table.top]), want.values,
                               atol=1e-5, rtol=0)
    assert view.model.table().side == "encoder" and len(view.model.table().layer_names) == \
        window.loaded.info.layers + 1  # A keeps its own (bert's) table
