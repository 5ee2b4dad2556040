"""Tokens to ELMo character ids, in AllenNLP's convention.

A token becomes ``max_characters_per_token`` (50) ids::

    [begin-of-word, byte_1, ..., byte_n, end-of-word, padding, padding, ...]   then +1 on every id

The bytes are the token's UTF-8 encoding, cut to ``max - 2`` bytes (a cut may
split a multi-byte character, as in the original). Markers are 256 begin of
sentence, 257 end of sentence, 258 begin of word, 259 end of word and 260
padding; after the +1 shift, id 0 is free and marks a padding *token* (a
row of zeros), which is how a padded batch is recognised.

The sentence markers ``<S>`` and ``</S>`` are whole tokens of their own:
``[bow, bos-or-eos, eow, padding...]`` (+1), added around every sentence by
the model (see ``add_sentence_boundaries``).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

BEGIN_OF_SENTENCE_CHAR = 256
END_OF_SENTENCE_CHAR = 257
BEGIN_OF_WORD_CHAR = 258
END_OF_WORD_CHAR = 259
PADDING_CHAR = 260

BOS_TOKEN = "<S>"
EOS_TOKEN = "</S>"

MAX_CHARACTERS_PER_TOKEN = 50


def _marker_token(marker: int, max_chars: int) -> list[int]:
    ids = [PADDING_CHAR] * max_chars
    ids[0:3] = [BEGIN_OF_WORD_CHAR, marker, END_OF_WORD_CHAR]
    return [i + 1 for i in ids]


def token_to_char_ids(token: str, max_chars: int = MAX_CHARACTERS_PER_TOKEN) -> list[int]:
    """``max_chars`` character ids (already shifted by +1) for one token."""
    if token == BOS_TOKEN:
        return _marker_token(BEGIN_OF_SENTENCE_CHAR, max_chars)
    if token == EOS_TOKEN:
        return _marker_token(END_OF_SENTENCE_CHAR, max_chars)
    data = token.encode("utf-8", "ignore")[: max_chars - 2]
    ids = [BEGIN_OF_WORD_CHAR, *data, END_OF_WORD_CHAR]
    ids += [PADDING_CHAR] * (max_chars - len(ids))
    return [i + 1 for i in ids]


def bos_char_ids(max_chars: int = MAX_CHARACTERS_PER_TOKEN) -> torch.Tensor:
    """[max_chars] ids of the ``<S>`` token."""
    return torch.tensor(token_to_char_ids(BOS_TOKEN, max_chars), dtype=torch.long)


def eos_char_ids(max_chars: int = MAX_CHARACTERS_PER_TOKEN) -> torch.Tensor:
    """[max_chars] ids of the ``</S>`` token."""
    return torch.tensor(token_to_char_ids(EOS_TOKEN, max_chars), dtype=torch.long)


def batch_to_char_ids(
    sentences: Sequence[Sequence[str]], max_chars: int = MAX_CHARACTERS_PER_TOKEN
) -> torch.Tensor:
    """Tokenised sentences -> [B, T, max_chars] long tensor, shorter sentences padded with 0-rows.

    The sentences carry no ``<S>``/``</S>``: the model adds them.
    """
    if any(isinstance(s, str) for s in sentences):
        raise TypeError("batch_to_char_ids takes a list of token lists, not of strings")
    longest = max((len(s) for s in sentences), default=0)
    out = torch.zeros(len(sentences), longest, max_chars, dtype=torch.long)
    for b, tokens in enumerate(sentences):
        if tokens:
            out[b, : len(tokens)] = torch.tensor([token_to_char_ids(t, max_chars) for t in tokens])
    return out


def token_mask(char_ids: torch.Tensor) -> torch.Tensor:
    """[B, T, C] ids -> [B, T] bool: True where a token is (any non-zero id)."""
    return (char_ids > 0).any(dim=-1)


def add_sentence_boundaries(char_ids: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Put ``<S>`` before and ``</S>`` after each sentence's valid tokens.

    char_ids [B, T, C], mask [B, T] (valid tokens first) -> ([B, T+2, C], [B, T+2]).
    Sentence b's ``</S>`` goes at position length_b + 1, so padding stays at the end.
    """
    batch, steps, max_chars = char_ids.shape
    lengths = mask.sum(dim=1)  # [B]
    out = char_ids.new_zeros(batch, steps + 2, max_chars)
    out[:, 1 : steps + 1] = char_ids * mask.unsqueeze(-1)
    out[:, 0] = bos_char_ids(max_chars).to(char_ids.device)
    out[torch.arange(batch, device=char_ids.device), lengths + 1] = eos_char_ids(max_chars).to(char_ids.device)
    positions = torch.arange(steps + 2, device=char_ids.device)
    new_mask = positions.unsqueeze(0) < (lengths + 2).unsqueeze(1)  # [B, T+2]
    return out, new_mask


def remove_sentence_boundaries(layer: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Undo ``add_sentence_boundaries`` on a layer: [B, T+2, D], [B, T+2] -> [B, T, D], [B, T].

    Positions past a sentence's last token (its ``</S>`` included) come back as zeros.
    """
    lengths = mask.sum(dim=1) - 2  # [B]
    steps = layer.shape[1] - 2
    new_mask = torch.arange(steps, device=layer.device).unsqueeze(0) < lengths.unsqueeze(1)
    return layer[:, 1:-1] * new_mask.unsqueeze(-1).to(layer.dtype), new_mask
