"""ELMo character ids: AllenNLP's convention, with expectations worked out by hand."""

from __future__ import annotations

import torch

from lm_workbench.engine.elmo.characters import (
    add_sentence_boundaries,
    batch_to_char_ids,
    remove_sentence_boundaries,
    token_mask,
    token_to_char_ids,
)

# After the +1 shift: begin of word 259, end of word 260, padding char 261, <S> 257, </S> 258.


def test_ascii_token_is_bytes_plus_one_between_word_markers():
    ids = token_to_char_ids("cat")
    assert len(ids) == 50
    assert ids[:5] == [259, ord("c") + 1, ord("a") + 1, ord("t") + 1, 260]
    assert ids[:5] == [259, 100, 98, 117, 260]
    assert ids[5:] == [261] * 45


def test_non_ascii_token_uses_utf8_bytes():
    # "é" is U+00E9 = UTF-8 bytes C3 A9 (195, 169); "ß" is C3 9F (195, 159)
    ids = token_to_char_ids("éß")
    assert ids[:6] == [259, 196, 170, 196, 160, 260]
    assert ids[6:] == [261] * 44


def test_long_token_is_cut_to_48_bytes_with_both_markers_kept():
    ids = token_to_char_ids("x" * 60)
    assert len(ids) == 50
    assert ids[0] == 259 and ids[-1] == 260
    assert ids[1:49] == [ord("x") + 1] * 48
    # a cut may split a multi-byte character, as in the original: 25 x "é" = 50 bytes -> 48 kept
    ids = token_to_char_ids("é" * 25)
    assert ids[1:49] == [196, 170] * 24 and ids[49] == 260


def test_sentence_markers_are_tokens_of_their_own():
    assert token_to_char_ids("<S>")[:4] == [259, 257, 260, 261]
    assert token_to_char_ids("</S>")[:4] == [259, 258, 260, 261]
    assert token_to_char_ids("<S>")[4:] == [261] * 46


def test_batch_pads_with_zero_rows_and_boundaries_go_after_each_sentence():
    ids = batch_to_char_ids([["a", "b", "c"], ["d"]])
    assert ids.shape == (2, 3, 50)
    assert ids[1, 1:].eq(0).all() and ids[1, 0, :3].tolist() == [259, ord("d") + 1, 260]
    mask = token_mask(ids)
    assert mask.tolist() == [[True, True, True], [True, False, False]]
    with_bounds, bmask = add_sentence_boundaries(ids, mask)
    assert with_bounds.shape == (2, 5, 50)
    assert bmask.tolist() == [[True] * 5, [True, True, True, False, False]]
    assert with_bounds[0, 0, 1] == 257 and with_bounds[1, 0, 1] == 257  # <S> first
    assert with_bounds[0, 4, 1] == 258 and with_bounds[1, 2, 1] == 258  # </S> right after the last token
    assert with_bounds[1, 3:].eq(0).all()
    assert torch.equal(with_bounds[0, 1:4], ids[0])
    layer = torch.arange(2 * 5 * 2, dtype=torch.float32).view(2, 5, 2) + 1
    stripped, smask = remove_sentence_boundaries(layer, bmask)
    assert smask.tolist() == mask.tolist()
    assert torch.equal(stripped[0], layer[0, 1:4])
    assert torch.equal(stripped[1, 0], layer[1, 1]) and stripped[1, 1:].eq(0).all()
