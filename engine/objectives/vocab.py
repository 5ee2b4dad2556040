"""What objectives need to know about a tokenizer's vocabulary, as numpy arrays.

``vocab_info(tokenizer)`` is computed once per tokenizer and cached: the
special ids (never corrupted), the pool of ordinary ids random replacements
are drawn from, which tokens continue a word (WordPiece ``##`` pieces; for
byte-level BPE and SentencePiece, pieces without the word-start marker ``Ġ``
or ``▁``), which tokens end a sentence, and the mask, pad, BOS, EOS and T5
sentinel ids.
"""

from __future__ import annotations

import re
import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np

_SENTINEL = re.compile(r"^<extra_id_(\d+)>$")
_WORD_START_MARKERS = ("Ġ", "▁")
_cache: "weakref.WeakKeyDictionary[Any, VocabInfo]" = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class VocabInfo:
    size: int
    special_ids: np.ndarray  # sorted int64
    random_pool: np.ndarray  # ordinary (non-special) ids, int64
    continues_word: np.ndarray  # bool per id: the token continues the previous word
    ends_sentence: np.ndarray  # bool per id: the token's text ends with a full stop
    mask_id: int | None
    pad_id: int
    bos_id: int | None
    eos_id: int | None
    sentinel_ids: tuple[int, ...]  # <extra_id_0>, <extra_id_1>, ... as far as they go
    ends_sentence_any: np.ndarray | None = None  # bool per id: the token's text ends with ".", "!" or "?"

    def is_special(self, ids: np.ndarray) -> np.ndarray:
        return np.isin(ids, self.special_ids)

    def _lookup(self, table: np.ndarray, ids: np.ndarray) -> np.ndarray:
        inside = (ids >= 0) & (ids < self.size)
        return np.where(inside, table[np.clip(ids, 0, self.size - 1)], False)

    def word_starts(self, ids: np.ndarray, special: np.ndarray | None = None) -> np.ndarray:
        """True where a word starts: after a special token, or at a token that does not continue a word."""
        ids = np.asarray(ids, dtype=np.int64)
        special = self.is_special(ids) if special is None else special
        starts = ~self._lookup(self.continues_word, ids)
        starts |= special
        if len(ids):
            starts[1:] |= special[:-1]
            starts[0] = True
        return starts

    def sentence_ends(self, ids: np.ndarray) -> np.ndarray:
        return self._lookup(self.ends_sentence, np.asarray(ids, dtype=np.int64))

    def sentence_final(self, ids: np.ndarray) -> np.ndarray:
        """True at tokens ending with a sentence-final mark: ".", "!" or "?"."""
        table = self.ends_sentence if self.ends_sentence_any is None else self.ends_sentence_any
        return self._lookup(table, np.asarray(ids, dtype=np.int64))


def _strip_markers(token: str) -> str:
    for marker in ("##",) + _WORD_START_MARKERS:
        if token.startswith(marker):
            return token[len(marker):]
    return token


def _continuation_flags(tokenizer: Any, tokens: list[str]) -> np.ndarray:
    model = getattr(getattr(tokenizer, "backend_tokenizer", None), "model", None)
    prefix = getattr(model, "continuing_subword_prefix", None)
    if not prefix and sum(t.startswith("##") for t in tokens) > 0.05 * max(1, len(tokens)):
        prefix = "##"
    if prefix:
        return np.array([t.startswith(prefix) for t in tokens], dtype=bool)
    for marker in _WORD_START_MARKERS:
        if sum(t.startswith(marker) for t in tokens) > 0.05 * max(1, len(tokens)):
            return np.array([not t.startswith(marker) for t in tokens], dtype=bool)
    return np.zeros(len(tokens), dtype=bool)  # no word marks: every token is a word


def _token_id(tokenizer: Any, name: str) -> int | None:
    value = getattr(tokenizer, name, None)
    return int(value) if isinstance(value, int) else None


def _build(tokenizer: Any) -> VocabInfo:
    size = len(tokenizer)
    tokens = [t if isinstance(t, str) else "" for t in tokenizer.convert_ids_to_tokens(list(range(size)))]
    special = sorted({int(i) for i in getattr(tokenizer, "all_special_ids", []) if i is not None and 0 <= i < size})
    # Added tokens marked special (e.g. sentinels) are special too.
    for tid, added in getattr(tokenizer, "added_tokens_decoder", {}).items():
        if getattr(added, "special", False) and 0 <= int(tid) < size:
            special.append(int(tid))
    special_ids = np.unique(np.asarray(special, dtype=np.int64))
    pool = np.setdiff1d(np.arange(size, dtype=np.int64), special_ids)
    vocab = {t: i for i, t in enumerate(tokens)}
    sentinels: list[int] = []
    while f"<extra_id_{len(sentinels)}>" in vocab:
        sentinels.append(vocab[f"<extra_id_{len(sentinels)}>"])
    ends = np.array([_strip_markers(t).rstrip().endswith(".") for t in tokens], dtype=bool)
    ends[special_ids] = False
    ends_any = np.array([_strip_markers(t).rstrip().endswith((".", "!", "?")) for t in tokens], dtype=bool)
    ends_any[special_ids] = False
    pad = _token_id(tokenizer, "pad_token_id")
    eos = _token_id(tokenizer, "eos_token_id")
    return VocabInfo(
        size=size, special_ids=special_ids, random_pool=pool, continues_word=_continuation_flags(tokenizer, tokens),
        ends_sentence=ends, mask_id=_token_id(tokenizer, "mask_token_id"),
        pad_id=pad if pad is not None else (eos if eos is not None else 0),
        bos_id=_token_id(tokenizer, "bos_token_id"), eos_id=eos, sentinel_ids=tuple(sentinels),
        ends_sentence_any=ends_any,
    )


def vocab_info(tokenizer: Any) -> VocabInfo:
    """The tokenizer's ``VocabInfo``, cached per tokenizer object."""
    try:
        cached = _cache.get(tokenizer)
    except TypeError:  # not weak-referenceable
        return _build(tokenizer)
    if cached is None or cached.size != len(tokenizer):
        cached = _build(tokenizer)
        _cache[tokenizer] = cached
    return cached
