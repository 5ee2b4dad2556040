"""The window says which tokens of a text longer than the model's window it read (issue 42, kind 1): the
Predictions, Lens, Heads and Patching tabs show "tokens a–b of n" and answer after the text's last window,
equal to plain ``transformers`` on those tokens."""

from __future__ import annotations

import pytest
import torch

pytestmark = pytest.mark.timeout(180)

WAIT = 30000
LONG = "The value of the object is returned to the caller. " * 10


def test_the_tabs_read_the_last_window_and_say_which_tokens(open_window, qtbot, tiny_models):
    import transformers as tf

    folder = str(tiny_models["gpt2"])
    tok = tf.AutoTokenizer.from_pretrained(folder)
    model = tf.AutoModelForCausalLM.from_pretrained(folder).eval()
    ids = tok(LONG)["input_ids"]
    n, window_size = len(ids), 64
    assert n > window_size
    line = f"tokens {n - window_size + 1}–{n} of {n}"
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([ids[-window_size:]])).logits[0, -1].double()
    top = int(torch.argmax(logits))

    window = open_window(folder, "predictions")
    view = window.view("predictions")
    window.text_input.set_text(LONG)
    qtbot.waitUntil(lambda: view.pages.currentWidget() is view.next_page and bool(view.candidates()), timeout=WAIT)
    assert view.candidates()[0].id == top
    assert line in view.notice.text() and view.ids() == ids  # all the ids kept: Accept appends to the text
    assert window.view("tokens").banner_text() is not None and line in window.view("tokens").banner_text()

    window.show_view("lens")
    lens = window.view("lens")
    qtbot.waitUntil(lambda: lens.model.table() is not None, timeout=WAIT)
    assert line in lens.notice.text()
    assert lens.model.table().top[-1][-1][0].id == top  # the last column: the next token after the whole text

    window.show_view("heads")
    heads = window.view("heads")
    heads.set_inputs(tok.convert_ids_to_tokens(top), "")
    heads.inputs_changed.emit()
    qtbot.waitUntil(lambda: heads.state.dla is not None, timeout=WAIT)
    assert heads.state.dla.total == pytest.approx(float(logits[top]), abs=1e-4)
    assert line in heads.dla_summary.text()

    window.show_view("patching")
    patching = window.view("patching")
    patching.set_inputs(LONG, LONG.replace("value", "name"), tok.convert_ids_to_tokens(top))
    patching.run_button.click()
    qtbot.waitUntil(lambda: not patching.state.running and patching.state.result is not None, timeout=WAIT)
    assert patching.state.result.clean_metric == pytest.approx(float(logits[top]), abs=1e-4)
    assert f"clean text: {line}" in patching.summary.text()
