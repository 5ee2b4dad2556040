"""Instruction tuning's label masks against masks built by hand from the literal text each template writes.

Each expected mask is made here from strings written out in the test (what the template must render before and
after each answer) tokenized piece by piece: -100 on the prompt pieces, the token ids on the answer pieces. The
code under test finds the pieces itself (by rendering the conversation with and without each answer), so a wrong
split, a trained user turn, a missed assistant turn or a trained header fails.
"""

from __future__ import annotations

import json

import pytest

from lm_workbench.engine.instruct.data import read_instructions, record_to_example
from lm_workbench.engine.instruct.encoding import encode_examples
from lm_workbench.engine.instruct.template import (
    IGNORE_INDEX, PLAIN_TEMPLATE, ChatTemplate, SkipRecord, encode_conversation, encode_prompt_answer, encode_seq2seq,
    pad_encoded, resolve_template,
)

# Qwen2's published chat template (ChatML with a default system turn), as its tokenizer_config.json has it.
QWEN2_TEMPLATE = (
    "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}"
    "{{ '<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n' }}{% endif %}"
    "{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
# A template that refuses turns out of order, as Llama-2's and Mistral's do.
ALTERNATING_TEMPLATE = (
    "{% for message in messages %}{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}"
    "{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}"
    "{% if message['role'] == 'user' %}{{ '[INST] ' + message['content'] + ' [/INST]' }}"
    "{% else %}{{ ' ' + message['content'] + eos_token }}{% endif %}{% endfor %}"
)


@pytest.fixture(scope="module")
def gpt2_tokenizer(tiny_models):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(tiny_models["gpt2"])


def expected(tokenizer, pieces):
    """(ids, labels) from ``(text, trained)`` pieces written out by hand."""
    ids, labels = [], []
    for text, trained in pieces:
        piece = tokenizer(text, add_special_tokens=False)["input_ids"]
        ids += piece
        labels += piece if trained else [IGNORE_INDEX] * len(piece)
    return ids, labels


def test_alpaca_record_with_the_plain_template(gpt2_tokenizer):
    example = record_to_example({"instruction": "reverse these words", "input": "a b c", "output": "c b a"})
    got = encode_conversation(gpt2_tokenizer, ChatTemplate(PLAIN_TEMPLATE, "plain"), example.as_messages(), 64)
    ids, labels = expected(gpt2_tokenizer, [
        ("### Instruction:\nreverse these words\n\na b c\n\n### Response:\n", False),
        ("c b a<|endoftext|>", True)])
    assert (got.input_ids, got.labels) == (ids, labels)
    assert got.trained == len(gpt2_tokenizer("c b a<|endoftext|>", add_special_tokens=False)["input_ids"])
    assert got.prompt_cut == got.answer_cut == 0


def test_multi_turn_chat_with_the_plain_template_trains_every_assistant_turn(gpt2_tokenizer):
    example = record_to_example({"messages": [
        {"role": "system", "content": "Be brief."}, {"role": "user", "content": "first word: x y"},
        {"role": "assistant", "content": "x"}, {"role": "user", "content": "and the last?"},
        {"role": "assistant", "content": "y"}]})
    got = encode_conversation(gpt2_tokenizer, ChatTemplate(PLAIN_TEMPLATE, "plain"), example.as_messages(), 512)
    ids, labels = expected(gpt2_tokenizer, [
        ("Be brief.\n\n### Instruction:\nfirst word: x y\n\n### Response:\n", False), ("x<|endoftext|>", True),
        ("### Instruction:\nand the last?\n\n### Response:\n", False), ("y<|endoftext|>", True)])
    assert (got.input_ids, got.labels) == (ids, labels)


def test_multi_turn_chat_with_a_real_chat_template(gpt2_tokenizer):
    template = ChatTemplate(QWEN2_TEMPLATE, "tokenizer")
    messages = [{"role": "user", "content": "plural of cat"}, {"role": "assistant", "content": "cats"},
                {"role": "user", "content": "of dog?"}, {"role": "assistant", "content": "dogs"}]
    got = encode_conversation(gpt2_tokenizer, template, messages, 512)
    ids, labels = expected(gpt2_tokenizer, [
        ("<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\nplural of cat<|im_end|>\n"
         "<|im_start|>assistant\n", False), ("cats<|im_end|>\n", True),
        ("<|im_start|>user\nof dog?<|im_end|>\n<|im_start|>assistant\n", False), ("dogs<|im_end|>\n", True)])
    assert (got.input_ids, got.labels) == (ids, labels)


def test_a_prompt_and_an_answer_for_preference_pairs(gpt2_tokenizer):
    got = encode_prompt_answer(gpt2_tokenizer, ChatTemplate(PLAIN_TEMPLATE, "plain"), "capital of Peru", "Lima", 64)
    ids, labels = expected(gpt2_tokenizer, [("### Instruction:\ncapital of Peru\n\n### Response:\n", False),
                                            ("Lima<|endoftext|>", True)])
    assert (got.input_ids, got.labels) == (ids, labels)


def test_encoder_decoder_prompt_to_the_encoder_answer_to_the_labels(tiny_models):
    from transformers import AutoTokenizer

    bart = AutoTokenizer.from_pretrained(tiny_models["bart"])
    got = encode_seq2seq(bart, ChatTemplate(PLAIN_TEMPLATE, "plain"), "repeat: a b", "a b", 64)
    body = bart("### Instruction:\nrepeat: a b\n\n### Response:\n", add_special_tokens=False)["input_ids"]
    answer = bart("a b", add_special_tokens=False)["input_ids"]
    assert got.input_ids == [bart.bos_token_id, *body, bart.eos_token_id]
    assert got.labels == [bart.bos_token_id, *answer, bart.eos_token_id]  # BART's target: <s> answer </s>
    # a long prompt loses its left, the special tokens stay
    long = encode_seq2seq(bart, ChatTemplate(PLAIN_TEMPLATE, "plain"), "repeat: a b", "a b", 6)
    assert long.input_ids == [bart.bos_token_id, *body[-4:], bart.eos_token_id]
    assert long.prompt_cut == len(body) - 4


def test_truncation_cuts_the_prompt_from_its_left_never_the_answer(gpt2_tokenizer):
    template = ChatTemplate(PLAIN_TEMPLATE, "plain")
    prompt = "repeat: " + " ".join(["cat"] * 30)
    full = encode_prompt_answer(gpt2_tokenizer, template, prompt, "cat cat", 1000)
    answer = [t for t in full.labels if t != IGNORE_INDEX]
    cut = encode_prompt_answer(gpt2_tokenizer, template, prompt, "cat cat", 20)
    assert len(cut.input_ids) == 20
    assert cut.input_ids == full.input_ids[-20:]  # the left of the prompt went
    assert [t for t in cut.labels if t != IGNORE_INDEX] == answer  # the answer is whole
    assert cut.prompt_cut == len(full.input_ids) - 20 and cut.answer_cut == 0


def test_an_answer_longer_than_the_window_is_cut_at_its_end(gpt2_tokenizer):
    template = ChatTemplate(PLAIN_TEMPLATE, "plain")
    answer = " ".join(["dog"] * 40)
    full = encode_prompt_answer(gpt2_tokenizer, template, "repeat", answer, 1000)
    prompt_len = full.labels.index(next(t for t in full.labels if t != IGNORE_INDEX))
    answer_ids = full.input_ids[prompt_len:]
    cut = encode_prompt_answer(gpt2_tokenizer, template, "repeat", answer, 16)
    # the rule: the prompt keeps min(its length, max(1, 16 // 4)) = 4 tokens, the answer's first 12 stay
    assert cut.input_ids == full.input_ids[prompt_len - 4:prompt_len] + answer_ids[:12]
    assert cut.labels == [IGNORE_INDEX] * 4 + answer_ids[:12]
    assert cut.answer_cut == len(answer_ids) - 12 and cut.prompt_cut == prompt_len - 4


def test_a_prompt_cut_to_nothing_is_skipped(gpt2_tokenizer):
    template = ChatTemplate(PLAIN_TEMPLATE, "plain")
    full = encode_prompt_answer(gpt2_tokenizer, template, "repeat", "dog dog dog", 1000)
    answer_len = full.trained
    with pytest.raises(SkipRecord, match="cut to nothing"):
        encode_prompt_answer(gpt2_tokenizer, template, "repeat", "dog dog dog", answer_len)


def test_padding_is_masked(gpt2_tokenizer):
    template = ChatTemplate(PLAIN_TEMPLATE, "plain")
    a = encode_prompt_answer(gpt2_tokenizer, template, "repeat: a", "a", 64)
    b = encode_prompt_answer(gpt2_tokenizer, template, "repeat: a b c d e f", "a b c d e f", 64)
    batch = pad_encoded([a, b], pad_id=0)
    n = len(a.input_ids)
    assert batch["labels"][0].tolist() == a.labels + [IGNORE_INDEX] * (len(b.input_ids) - n)
    assert batch["attention_mask"][0].tolist() == [1] * n + [0] * (len(b.input_ids) - n)
    assert batch["labels"][1].tolist() == b.labels


def test_auto_uses_the_models_template_or_falls_back_to_plain_and_says_so(gpt2_tokenizer, tmp_path):
    fallback = resolve_template(gpt2_tokenizer, "auto")
    assert fallback.text == PLAIN_TEMPLATE and "no chat template" in fallback.note
    gpt2_tokenizer.chat_template = QWEN2_TEMPLATE
    try:
        own = resolve_template(gpt2_tokenizer, "auto")
    finally:
        gpt2_tokenizer.chat_template = None
    assert own.text == QWEN2_TEMPLATE and own.source == "tokenizer" and not own.note
    file = tmp_path / "mine.jinja"
    file.write_text(QWEN2_TEMPLATE, encoding="utf-8")
    assert resolve_template(gpt2_tokenizer, str(file)).text == QWEN2_TEMPLATE


def test_bad_records_are_skipped_counted_and_said(gpt2_tokenizer, tmp_path):
    lines = [
        {"instruction": "plural of cat", "output": "cats"},
        {"instruction": "plural of dog"},  # no output
        {"messages": [{"role": "user", "content": "hi"}, {"role": "robot", "content": "beep"}]},  # unknown role
        {"messages": [{"role": "user", "content": "hi"}]},  # no assistant turn
        {"text": "hello"},  # neither shape
        {"messages": [{"role": "user", "content": "a"}, {"role": "user", "content": "b"},
                      {"role": "assistant", "content": "c"}]},  # the alternating template refuses it
    ]
    path = tmp_path / "data.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\nnot json\n", encoding="utf-8")
    data = read_instructions(path)
    assert len(data) == 2 and data.report.rows_skipped == 5
    reasons = {s.line: s.reason for s in data.report.skipped}
    assert reasons[2] == "no output" and "unknown role 'robot'" in reasons[3]
    assert "no assistant turn" in reasons[4] and "neither" in reasons[5] and reasons[7] == "not JSON"
    encoded = encode_examples(gpt2_tokenizer, ChatTemplate(ALTERNATING_TEMPLATE, "file"), data, 64)
    assert len(encoded.features) == 1 and encoded.skipped[0][0] == 6
    assert "must alternate" in encoded.skipped[0][1]
    assert "1 record skipped (first: line 6" in encoded.notes("training")[0]
