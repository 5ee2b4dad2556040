"""Tokenizers trained per family load with AutoTokenizer and carry the family's special tokens."""

from __future__ import annotations

import numpy as np
import pytest
from transformers import AutoTokenizer

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.objectives.vocab import vocab_info
from lm_workbench.engine.pretrain.tokenizer_training import FAMILIES as TOKENIZER_FAMILIES, train_tokenizer
from tests.support.pretrain_helpers import FAMILIES, train_all, write_corpus

SENTINELS = 8


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    root = tmp_path_factory.mktemp("pretrain-tokenizers")
    corpus = write_corpus(root / "corpus.txt", documents=40)
    train_all(root, corpus, vocab_size=400, num_sentinels=SENTINELS)
    # What every view will do: load the folder with transformers' own AutoTokenizer.
    return {family: AutoTokenizer.from_pretrained(root / family) for family in FAMILIES}


def ids_of(tok, *tokens):
    return [tok.convert_tokens_to_ids(t) for t in tokens]


def test_families_are_the_cli_names():
    from lm_workbench.pretrain.spec import FAMILIES as CLI_FAMILIES

    assert TOKENIZER_FAMILIES == CLI_FAMILIES == (*FAMILIES, "elmo")  # these tests cover the subword four


def test_bert_wordpiece_cls_sep_pad_mask_and_lowercase(trained):
    tok = trained["bert"]
    assert tok.is_fast
    assert (tok.pad_token, tok.unk_token, tok.cls_token, tok.sep_token, tok.mask_token) == \
        ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
    cls, sep = ids_of(tok, "[CLS]", "[SEP]")
    single = tok("the cat")["input_ids"]
    assert single[0] == cls and single[-1] == sep and len(single) >= 3
    pair = tok("the cat", "a dog")
    ids, types = pair["input_ids"], pair["token_type_ids"]
    assert ids[0] == cls and ids.count(sep) == 2 and ids[-1] == sep
    first_sep = ids.index(sep)
    assert set(types[: first_sep + 1]) == {0} and set(types[first_sep + 1:]) == {1}
    assert tok("THE Cat")["input_ids"] == single  # uncased, as BERT-base-uncased
    assert any(t.startswith("##") for t in tok.get_vocab())  # WordPiece continuation pieces
    assert tok.decode(single, skip_special_tokens=True) == "the cat"


def test_gpt2_byte_level_with_endoftext_and_a_separate_pad(trained):
    tok = trained["gpt2"]
    assert tok.bos_token == tok.eos_token == tok.unk_token == "<|endoftext|>"
    assert tok.pad_token is not None and tok.pad_token_id != tok.eos_token_id
    ids = tok("the cat")["input_ids"]
    assert tok.eos_token_id not in ids and tok.pad_token_id not in ids  # no specials added
    assert tok.decode(ids).strip() == "the cat"
    assert tok.decode(tok("caf\u00e9 \u2603")["input_ids"]).strip() == "caf\u00e9 \u2603"  # bytes: no unknowns
    batch = tok(["the", "the cat sees a dog"], padding=True)
    assert batch["input_ids"][0][-1] == tok.pad_token_id and batch["attention_mask"][0][-1] == 0
    assert tok.convert_ids_to_tokens(ids)[0].startswith("\u0120")  # a line's first word is a word like any other


def test_bart_roberta_style_specials(trained):
    tok = trained["bart"]
    assert ids_of(tok, "<s>", "<pad>", "</s>", "<unk>") == [0, 1, 2, 3]  # BART's layout
    assert (tok.bos_token, tok.eos_token, tok.pad_token, tok.mask_token) == ("<s>", "</s>", "<pad>", "<mask>")
    ids = tok("the cat")["input_ids"]
    assert ids[0] == 0 and ids[-1] == 2 and 2 not in ids[1:-1]
    pair = tok("the cat", "a dog")["input_ids"]
    assert pair[0] == 0 and pair.count(2) == 3 and pair[-1] == 2  # <s> A </s></s> B </s>
    masked = tok.convert_ids_to_tokens(tok("the <mask> sat")["input_ids"])
    assert masked[1:3] == ["\u0120the", "<mask>"]  # the mask swallows the space before it
    assert tok.decode(ids, skip_special_tokens=True).strip() == "the cat"


def test_t5_unigram_eos_and_sentinels(trained):
    tok = trained["t5"]
    assert ids_of(tok, "<pad>", "</s>", "<unk>") == [0, 1, 2]
    assert tok.bos_token is None and tok.mask_token is None
    ids = tok("the cat")["input_ids"]
    assert ids[-1] == tok.eos_token_id and tok.eos_token_id not in ids[:-1]
    sentinels = ids_of(tok, *[f"<extra_id_{i}>" for i in range(SENTINELS)])
    assert sentinels == list(range(len(tok) - SENTINELS, len(tok)))  # last, as in T5's vocabulary
    assert set(sentinels) <= set(tok.all_special_ids)
    assert tok.convert_tokens_to_ids(f"<extra_id_{SENTINELS}>") == tok.unk_token_id
    assert tok.convert_ids_to_tokens(tok("the <extra_id_0> cat")["input_ids"]).count("<extra_id_0>") == 1
    assert tok.decode(ids, skip_special_tokens=True) == "the cat"


def test_objectives_get_what_they_need(trained):
    from lm_workbench.plugins.objectives.t5_span import T5SpanCorruption

    bert, gpt2, bart, t5 = (vocab_info(trained[f]) for f in FAMILIES)
    assert bert.mask_id == trained["bert"].mask_token_id and bert.pad_id == 0
    assert bart.mask_id == trained["bart"].mask_token_id and bart.pad_id == 1
    assert gpt2.pad_id == trained["gpt2"].pad_token_id and gpt2.eos_id == trained["gpt2"].eos_token_id
    assert len(t5.sentinel_ids) == SENTINELS and t5.eos_id == 1 and t5.pad_id == 0
    T5SpanCorruption().check_requirements(trained["t5"])
    for info, tok in zip((bert, gpt2, bart, t5), (trained[f] for f in FAMILIES)):
        expected = np.array(sorted(set(tok.all_special_ids)))
        assert np.array_equal(info.special_ids, expected)
        assert info.ends_sentence_any.any()  # sentence stops exist for NSP and sentence permutation


def test_vocab_size_is_respected(trained):
    for family in FAMILIES:
        assert len(trained[family]) <= 400
    for family in ("gpt2", "bart"):  # byte-level: 256 byte symbols, then merges up to the size asked for
        assert len(trained[family]) == 400


@pytest.mark.parametrize("kwargs, words", [
    (dict(family="roberta"), "unknown model family"),
    (dict(family="bert", vocab_size=10), "too small"),
    (dict(family="t5", num_sentinels=1), "at least 2 sentinel"),
])
def test_bad_settings(tmp_path, kwargs, words):
    family = kwargs.pop("family")
    with pytest.raises(WorkbenchError, match=words):
        train_tokenizer(family, ["some text here."], tmp_path / "tok", **kwargs)


def test_empty_texts_refused(tmp_path):
    with pytest.raises(WorkbenchError, match="no vocabulary"):
        train_tokenizer("bert", [], tmp_path / "tok")


def test_cached_tokenizer_reuses_until_the_corpus_changes(tmp_path):
    from lm_workbench.engine.pretrain.tokenizer_training import cached_tokenizer, tokenizer_fingerprint

    corpus = write_corpus(tmp_path / "c.txt", documents=10)
    first = cached_tokenizer("bert", [corpus], tmp_path / "cache", vocab_size=300)
    again = cached_tokenizer("bert", [corpus], tmp_path / "cache", vocab_size=300)
    assert tokenizer_fingerprint(again) == tokenizer_fingerprint(first)
    assert again.name_or_path == first.name_or_path
    write_corpus(corpus, documents=12, seed=1)
    changed = cached_tokenizer("bert", [corpus], tmp_path / "cache", vocab_size=300)
    assert changed.name_or_path != first.name_or_path
    assert sorted(p.name.startswith(".tmp") for p in (tmp_path / "cache").iterdir()) == [False, False]
