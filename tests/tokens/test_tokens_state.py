"""The Tokens tab's state without Qt: counts, the truncation banner and what model B tokenizes, checked against
the tokenizer's own output (MiniLM's WordPiece)."""

from __future__ import annotations

import pytest

from lm_workbench.engine.tokens import tokenize
from lm_workbench.tokens.state import TokensState


@pytest.fixture(scope="module")
def tokenizer(minilm):
    return minilm.tokenizer


@pytest.mark.parametrize("text, pair", [("unbelievably tokenization works", None), ("The bank.", "It opens."),
                                        ("a", None)])
def test_counts_and_b_request_follow_the_tokens(tokenizer, text, pair):
    state, seen = TokensState(), []
    state.events.tokens_changed.connect(lambda: seen.append("a"))
    state.events.b_changed.connect(lambda: seen.append("b"))
    state.set_tokenized(tokenize(tokenizer, text, pair, max_length=512))
    enc = tokenizer(text, pair) if pair else tokenizer(text)  # the reference: the tokenizer itself
    ids, words = enc["input_ids"], enc.word_ids()
    special = {tokenizer.cls_token_id, tokenizer.sep_token_id}
    # a word of a pair restarts its numbering: count (sequence, word) groups
    seq = enc.sequence_ids()
    groups = {}
    for i, w in enumerate(words):
        if w is not None:
            groups.setdefault((seq[i], w), []).append(i)
    c = state.counts()
    assert c.tokens == len(ids)
    assert c.special == sum(1 for t in ids if t in special)
    assert c.words == len(groups)
    assert c.split == sum(1 for g in groups.values() if len(g) > 1)
    assert state.b_request() == (text, pair) and state.banner() is None
    assert seen == ["b", "a"]  # B's old tokens are dropped before A's new ones show


def test_a_cut_text_has_a_banner_and_a_hint_clears_everything(tokenizer):
    state = TokensState()
    state.set_tokenized(tokenize(tokenizer, "one two three four five six seven", max_length=5))
    assert state.counts().tokens == 5 and state.banner().startswith("⚠ Truncated: ")
    state.set_b(tokenize(tokenizer, "one", max_length=512))
    assert state.b_title("gpt2") == "B: gpt2 · 3 tokens"
    state.show_hint("Load a model (left).")
    assert (state.tokenized, state.tokenized_b, state.counts(), state.banner(), state.b_request()) == \
        (None, None, None, None, None)
    assert state.hint == "Load a model (left)."
    state.set_tokenized(None)  # nothing to show: no tokens, no hint
    assert state.counts() is None and state.hint == ""
