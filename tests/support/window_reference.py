"""The window rule written out independently, for the harness of texts longer than the window (issue 42).

Plain ``transformers`` and list slicing only, nothing from the workbench: a text's own ids
(``add_special_tokens=False``), the specials each tiny family puts around them, the window a command says it
read ("tokens a–b of n" in its notes, else the whole text) and what the rule says that window must be.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

NOTE = re.compile(r"tokens (\d+)–(\d+) of (\d+)")


def text_ids(tokenizer: Any, text: str) -> list[int]:
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


def specials(kind: str, tokenizer: Any) -> tuple[list[int], list[int]]:
    """(before, after) the text: the special ids each tiny family's tokenizer adds (from its own attributes)."""
    if kind == "bert":
        return [tokenizer.cls_token_id], [tokenizer.sep_token_id]
    if kind == "bart":
        return [tokenizer.bos_token_id], [tokenizer.eos_token_id]
    if kind == "t5":
        return [], [tokenizer.eos_token_id]
    return [], []  # GPT-2 and the tiny Llama add none


def said_window(notes: Sequence[str] | None, total: int) -> tuple[int, int]:
    """(a, b), 1-based inclusive: the window a command's notes name, or the whole text without a note."""
    found = [NOTE.search(n) for n in notes or ()]
    found = [m for m in found if m]
    if not found:
        return 1, total
    assert len(found) == 1, notes
    a, b, n = (int(g) for g in found[0].groups())
    assert n == total, (notes, total)
    return a, b


def window_ids(kind: str, tokenizer: Any, ids: Sequence[int], a: int, b: int) -> list[int]:
    before, after = specials(kind, tokenizer)
    return before + list(ids[a - 1:b]) + after


def check_decoder_window(a: int, b: int, total: int, window: int, n_specials: int = 0) -> None:
    """A decoder reads the last ``window − specials`` text tokens."""
    assert b == total
    assert b - a + 1 == min(total, window - n_specials)


def check_mask_window(a: int, b: int, total: int, room: int, masks: Sequence[int]) -> None:
    """An encoder reads ``min(total, room)`` text tokens holding every mask (0-based ``masks``), with as much
    context on both sides as fits: the two sides differ by at most one token unless one meets the text's edge."""
    assert b - a + 1 == min(total, room)
    lo, hi = min(masks), max(masks)
    assert a - 1 <= lo and hi <= b - 1
    left, right = lo - (a - 1), (b - 1) - hi
    if a > 1 and b < total:
        assert abs(left - right) <= 1, (a, b, masks)


REPORTED_TEXT = "the quick brown fox jumps over the lazy dog " * 30  # issue 42's example (the shell's $(...) drops
# print's newline): 271 GPT-2 tokens


def build_gpt2_with_128_window(folder: Any) -> Any:
    """Issue 42's model: a tiny random GPT-2 with a 128-token window (``n_positions=128``), whose byte-level BPE
    spells each word of ``REPORTED_TEXT`` as one token, as GPT-2's own does (271 tokens)."""
    import torch
    import transformers as tf
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=["<|endoftext|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator([REPORTED_TEXT.strip()] * 3, trainer)
    end = "<|endoftext|>"
    tokenizer = tf.PreTrainedTokenizerFast(tokenizer_object=tok, bos_token=end, eos_token=end, unk_token=end,
                                           model_max_length=128)
    torch.manual_seed(42)
    config = tf.GPT2Config(n_embd=32, n_layer=2, n_head=4, n_positions=128, vocab_size=len(tokenizer),
                           bos_token_id=tokenizer.eos_token_id, eos_token_id=tokenizer.eos_token_id)
    tf.GPT2LMHeadModel(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
