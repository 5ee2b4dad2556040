"""Tokenize once: the window's encoding of the text travels in ``Inputs.tokens`` and the Attention and Logit
lens tabs encode from it instead of tokenizing again (issue 31), unless a tab's own cap cuts the text shorter.
(Fill-mask and next-token predictions read their own encodings, and say why in their jobs.)"""

from __future__ import annotations

import numpy as np
import pytest

import lm_workbench.engine.analysis as analysis
from lm_workbench.engine.analysis import encode
from lm_workbench.engine.models.loading import load_source as load_model
from lm_workbench.engine.tokens import tokenize

TEXT = "The bank raised interest rates because inflation rose."


@pytest.fixture
def counted(monkeypatch):
    calls = []
    real = analysis.tokenize_many

    def counting(*args, **kwargs):
        calls.append(args[1])
        return real(*args, **kwargs)

    monkeypatch.setattr(analysis, "tokenize_many", counting)
    return calls


def test_an_encoding_made_from_the_window_s_tokens_equals_one_made_from_the_text(tiny_models, counted):
    loaded = load_model(str(tiny_models["bert"]))
    made = tokenize(loaded.tokenizer, TEXT, max_length=loaded.info.max_positions)
    fresh = encode(loaded, TEXT)
    assert len(counted) == 1
    reused = encode(loaded, TEXT, tokenized=made)
    assert len(counted) == 1  # nothing tokenized the second time
    assert reused.tokenized.ids == fresh.tokenized.ids
    np.testing.assert_array_equal(reused.hidden_states, fresh.hidden_states)
    np.testing.assert_array_equal(reused.attentions, fresh.attentions)
    capped = encode(loaded, TEXT, tokenized=made, max_tokens=5)  # a view's cap cuts it: tokenized at the cap
    assert len(counted) == 2 and len(capped.tokenized.ids) == 5 and capped.tokenized.truncated


@pytest.mark.timeout(120)
def test_the_attention_tab_encodes_the_window_s_tokens(open_window, qtbot, tiny_models, counted):
    window = open_window(str(tiny_models["bert"]), "tokens")
    window.text_input.editor.setPlainText(TEXT)
    view = window.view("attention")
    qtbot.waitUntil(lambda: window.tokenized is not None and window.tokenized.text == TEXT, timeout=30000)
    before = len(counted)
    window.show_view("attention")
    qtbot.waitUntil(lambda: view.encoding() is not None and view.encoding().tokenized.text == TEXT, timeout=30000)
    assert len(counted) == before  # the Attention tab did not tokenize the text again
    assert view.encoding().tokenized.ids == window.tokenized.ids


@pytest.mark.timeout(120)
def test_the_logit_lens_tab_reads_the_window_s_tokens(open_window, qtbot, tiny_models, counted, fresh_home, tmp_path):
    import shutil

    folder = tmp_path / "gpt2"  # a copy: other tests train tuned lenses next to the shared tiny GPT-2
    shutil.copytree(tiny_models["gpt2"], folder)
    window = open_window(str(folder), "tokens")
    window.text_input.editor.setPlainText(TEXT)
    qtbot.waitUntil(lambda: window.tokenized is not None and window.tokenized.text == TEXT, timeout=30000)
    view = window.view("lens")
    before = len(counted)
    window.show_view("lens")
    qtbot.waitUntil(lambda: view.model.table() is not None, timeout=30000)
    assert len(counted) == before  # the lens did not tokenize the text again
    assert len(view.model.table().tokens) == len(window.tokenized.ids)
