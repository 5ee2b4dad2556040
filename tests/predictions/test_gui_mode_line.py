"""The Predictions tab's line says what to write for the loaded model: an encoder-decoder's names its tokenizer's
mask token, and one whose tokenizer has none (T5) says so instead of asking for a <mask> it cannot read (a user
typed <mask> on the course T5 as the line said and got "the tokenizer … has none")."""

from __future__ import annotations

import pytest

TEXT = "The cat sat on the mat."


@pytest.mark.parametrize("family, says, not_says", [
    ("bart", "write <mask> (or [MASK])", "has none"),
    ("t5", "has none", "write <mask>"),
    ("bert", "Fill-mask: write [MASK]", "Infilling"),
])
def test_the_line_names_what_the_model_reads(open_window, qtbot, tiny_models, family, says, not_says):
    window = open_window(str(tiny_models[family]), "predictions", about=False)
    view = window.view("predictions")
    window.text_input.set_text(TEXT)
    qtbot.waitUntil(lambda: says in view.mode_label.text(), timeout=30000)
    assert not_says not in view.mode_label.text()
