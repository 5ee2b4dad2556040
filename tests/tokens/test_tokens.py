"""Properties of tokenization with offsets and of length bucketing (hypothesis)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lm_workbench.engine.analysis import length_buckets
from lm_workbench.engine.tokens import tokenize

words = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=12)
texts = st.lists(words, min_size=1, max_size=20).map(" ".join).filter(lambda t: t.strip())


@pytest.fixture(scope="module")
def tokenizer(minilm):
    return minilm.tokenizer


@given(text=texts)
def test_offsets_point_into_the_text_and_words_partition_tokens(tokenizer, text):
    tok = tokenize(tokenizer, text, max_length=512)
    assert len(tok.tokens) == len(tok.offsets) == len(tok.word_ids) == len(tok.ids)
    for (start, end), special in zip(tok.offsets, tok.special):
        assert 0 <= start <= end <= len(text)
        if special:
            assert (start, end) == (0, 0)
    groups = tok.word_groups()
    assert [i for g in groups for i in g] == list(range(len(tok.ids)))
    for g in groups:
        assert len({tok.word_ids[i] for i in g}) == 1
    # a word's pieces cover a contiguous stretch of the text, in order
    for g in groups:
        spans = [tok.offsets[i] for i in g if not tok.special[i]]
        assert spans == sorted(spans)


def test_subwords_of_one_word_share_a_group(tokenizer):
    tok = tokenize(tokenizer, "unbelievably tokenization", max_length=512)
    groups = [[tok.tokens[i] for i in g] for g in tok.word_groups()]
    assert ["[CLS]"] in groups and ["[SEP]"] in groups
    multi = [g for g in groups if len(g) > 1]
    assert multi and all(any(t.startswith("##") for t in g[1:]) for g in multi)
    assert "".join(t.removeprefix("##") for t in multi[0]) in "unbelievablytokenization"


@given(lengths=st.lists(st.integers(1, 512), min_size=1, max_size=200),
       batch_size=st.integers(1, 64), budget=st.integers(512, 20000))
def test_buckets_cover_every_index_once_within_budget(lengths, batch_size, budget):
    batches = length_buckets(lengths, batch_size, budget)
    flat = [i for b in batches for i in b]
    assert sorted(flat) == list(range(len(lengths)))
    for b in batches:
        assert 1 <= len(b) <= batch_size
        assert len(b) == 1 or max(lengths[i] for i in b) * len(b) <= budget


def test_batched_tokenization_equals_one_at_a_time(tiny_models):
    from lm_workbench.engine.models.loading import load_source as load_model
    from lm_workbench.engine.tokens import tokenize_many

    tokenizer = load_model(str(tiny_models["bert"])).tokenizer
    texts = ["A short one.", "statement " * 100, "Pairs too.", "Unbelievably tokenized!"]
    pairs = [None, None, "The second segment.", None]
    many = tokenize_many(tokenizer, texts, pairs, max_length=64)
    for text, pair, got in zip(texts, pairs, many):
        one = tokenize(tokenizer, text, pair, max_length=64)
        assert (got.ids, got.offsets, got.word_ids, got.segments, got.truncated, got.full_length,
                got.extra_inputs) == (one.ids, one.offsets, one.word_ids, one.segments, one.truncated,
                                      one.full_length, one.extra_inputs)
    assert many[1].truncated and not many[0].truncated
    assert many[2].segments.count(1) > 0
