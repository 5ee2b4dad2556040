"""Subword-label alignment and QA answer positions, against hand-worked examples on the tiny tokenizers."""

import pytest
from transformers import AutoTokenizer

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.finetune.alignment import IGNORE_INDEX, align_word_labels, best_span, encode_qa, encode_tagged

X = IGNORE_INDEX


@pytest.fixture(scope="module")
def bert_tokenizer(tiny_models):
    return AutoTokenizer.from_pretrained(tiny_models["bert"])


@pytest.fixture(scope="module")
def gpt2_tokenizer(tiny_models):
    return AutoTokenizer.from_pretrained(tiny_models["gpt2"], add_prefix_space=True)


def test_align_word_labels_by_hand():
    # [CLS] w0 w0 w1 w2 w2 w2 [SEP]
    assert align_word_labels([None, 0, 0, 1, 2, 2, 2, None], [5, 6, 7]) == [X, 5, X, 6, 7, X, X, X]


def test_wordpiece_first_subword_labelled(bert_tokenizer):
    # The tiny vocabulary is trained per session, so the expected labels are worked out from the token strings:
    # "##" marks a continuation, [CLS]/[SEP] are special, every other token starts the next word.
    words, labels = ["Tokenization", "of", "Zanzibar", "works"], [1, 0, 2, 0]
    encoded = encode_tagged(bert_tokenizer, words, labels)
    tokens = bert_tokenizer.convert_ids_to_tokens(encoded["input_ids"])
    expected, word = [], iter(labels)
    for token in tokens:
        expected.append(X if token in ("[CLS]", "[SEP]") or token.startswith("##") else next(word))
    assert len(tokens) > len(words) + 2  # some words are split, so the rule matters
    assert encoded["labels"] == expected
    assert [label for label in encoded["labels"] if label != X] == labels
    assert len(encoded["attention_mask"]) == len(tokens)


def test_bpe_first_subword_labelled(gpt2_tokenizer):
    # For byte-level BPE the first piece of a word is the one whose offset inside that word starts at 0.
    words, labels = ["Tokenization", "of", "Zanzibar"], [3, 0, 4]
    encoded = encode_tagged(gpt2_tokenizer, words, labels)
    offsets = gpt2_tokenizer(words, is_split_into_words=True, return_offsets_mapping=True)["offset_mapping"]
    pieces = [gpt2_tokenizer.decode([i]).strip() for i in encoded["input_ids"]]
    assert "".join(pieces) == "".join(words) and len(pieces) > len(words)
    word = iter(labels)
    expected = [next(word) if start == 0 else X for start, _ in offsets]
    assert encoded["labels"] == expected
    assert [label for label in encoded["labels"] if label != X] == labels


def test_word_label_count_must_match(bert_tokenizer):
    with pytest.raises(WorkbenchError, match="2 words but 1 labels"):
        encode_tagged(bert_tokenizer, ["a", "b"], [0])


CONTEXT = "The module lives in Zanzibar today."


def test_qa_answer_span_wordpiece(bert_tokenizer):
    answer_start = CONTEXT.index("Zanzibar")  # 20
    (window,) = encode_qa(bert_tokenizer, "Where is it?", CONTEXT, answer_start, "Zanzibar")
    tokens = bert_tokenizer.convert_ids_to_tokens(window.input_ids)
    s, e = window.start_position, window.end_position
    # the tokens from start to end spell the answer (lower-cased WordPiece) and nothing around it
    assert "".join(t.removeprefix("##") for t in tokens[s:e + 1]) == "zanzibar"
    assert tokens[s - 1] == "in" and not tokens[e + 1].startswith("##")
    assert window.offsets[s][0] == answer_start and window.offsets[e][1] == answer_start + len("Zanzibar")
    assert tokens[0] == "[CLS]" and window.offsets[0] is None  # question and specials carry no offsets
    assert tokens.index("[SEP]") < s


def test_qa_answer_span_bpe(gpt2_tokenizer):
    answer_start = CONTEXT.index("module")
    (window,) = encode_qa(gpt2_tokenizer, "Where is it?", CONTEXT, answer_start, "module")
    s, e = window.start_position, window.end_position
    assert gpt2_tokenizer.decode(window.input_ids[s:e + 1]).strip() == "module"
    assert window.offsets[s - 1] == (0, 3)  # "The", the first context token


def test_qa_windows_with_stride(bert_tokenizer):
    context = " ".join(["filler"] * 40) + " The capital is Zanzibar today ."
    start = context.index("Zanzibar")
    windows = encode_qa(bert_tokenizer, "Where?", context, start, "Zanzibar", max_length=24, stride=8)
    assert len(windows) > 2
    assert all(len(w.input_ids) <= 24 for w in windows)
    # the first window stops long before the answer: both positions at the CLS index
    assert (windows[0].start_position, windows[0].end_position) == (0, 0)
    found = [w for w in windows if w.start_position > 0]
    assert found
    for w in found:
        assert context[w.offsets[w.start_position][0]:w.offsets[w.end_position][1]] == "Zanzibar"


def test_best_span_picks_highest_valid_pair():
    offsets = [None, None, (0, 3), (4, 9), (10, 15)]
    start_logits = [9.0, 0.0, 1.0, 3.0, 0.5]   # the CLS start is best but not in the context
    end_logits = [9.0, 0.0, 2.0, 0.1, 2.5]
    assert best_span(start_logits, end_logits, offsets) == (4, 15)  # tokens 3..4: 3.0 + 2.5
    # one token only: (2,2) scores 3.0, (3,3) 3.1, (4,4) 3.0
    assert best_span(start_logits, end_logits, offsets, max_answer_tokens=1) == (4, 9)
