"""Tokenize text the way the model sees it, keeping the way back to the text.

Each token carries its character span in the original text, the index of the
word it belongs to (the tokenizer's pre-tokenised words, so subwords of one
word share an index) and its segment (0 = text, 1 = pair, None = special).
Texts longer than the model's window are truncated, and the result says so.
A word-level tokenizer (ELMo's ``WordTokenizer``, ``is_word_level``) gives
words with their offsets instead, one word per token.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.text_input import require_text


@dataclass
class TokenizedText:
    text: str
    pair: str | None
    ids: list[int]
    tokens: list[str]
    offsets: list[tuple[int, int]]  # (start, end) into text (segment 0) or pair (segment 1)
    word_ids: list[int | None]
    segments: list[int | None]
    special: list[bool]
    truncated: bool = False
    full_length: int = 0  # tokens before truncation
    extra_inputs: dict[str, list[int]] = field(default_factory=dict)  # e.g. token_type_ids

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def truncation_message(self) -> str | None:
        if not self.truncated:
            return None
        return f"the text has {self.full_length} tokens; the model reads {len(self.ids)}, the rest was cut off"

    def word_groups(self) -> list[list[int]]:
        """Token indices grouped into words, in order (special tokens alone)."""
        groups: list[list[int]] = []
        last: tuple[int | None, int | None] | None = None
        for i, (w, s) in enumerate(zip(self.word_ids, self.segments)):
            key = (s, w)
            if w is not None and groups and key == last:
                groups[-1].append(i)
            else:
                groups.append([i])
            last = key
        return groups


def _from_batch(tokenizer: Any, enc: Any, b: int, text: str, pair: str | None, full_length: int,
                truncated: bool) -> TokenizedText:
    ids = list(enc["input_ids"][b])
    segments = enc.sequence_ids(b)
    extra = {
        name: list(enc[name][b])
        for name in ("token_type_ids",)
        if name in enc and name in getattr(tokenizer, "model_input_names", ())
    }
    return TokenizedText(
        text=text,
        pair=pair,
        ids=ids,
        tokens=tokenizer.convert_ids_to_tokens(ids),
        offsets=[tuple(o) for o in enc["offset_mapping"][b]],
        word_ids=enc.word_ids(b),
        segments=list(segments),
        special=[s is None for s in segments],
        truncated=truncated,
        full_length=full_length,
        extra_inputs=extra,
    )


def _word_level(tokenizer: Any, text: str, pair: str | None) -> TokenizedText:
    """A word-level model's tokens (ELMo: words, no special tokens, no window)."""
    require_text(text)
    if pair is not None:
        raise WorkbenchError("this model reads one text at a time; it takes no pair text")
    words = tokenizer.tokenize_words(text)
    n = len(words["ids"])
    return TokenizedText(text=text, pair=None, ids=words["ids"], tokens=words["tokens"], offsets=words["offsets"],
                         word_ids=words["word_ids"], segments=[0] * n, special=[False] * n, full_length=n)


def tokenize_many(
    tokenizer: Any, texts: Sequence[str], pairs: Sequence[str | None] | None = None, max_length: int | None = None
) -> list[TokenizedText]:
    """Tokenize many texts in one call to the (parallel, Rust) tokenizer; see ``tokenize``."""
    pairs = list(pairs) if pairs is not None else [None] * len(texts)
    if getattr(tokenizer, "is_word_level", False):
        return [_word_level(tokenizer, text, pair) for text, pair in zip(texts, pairs)]
    for text, pair in zip(texts, pairs):
        require_text(text)
        if pair is not None:
            require_text(pair, "pair text")
    kwargs: dict[str, Any] = dict(add_special_tokens=True, return_offsets_mapping=True, verbose=False)
    out: list[TokenizedText | None] = [None] * len(texts)
    # Texts and pairs go in separate calls: the tokenizer takes a batch of one kind.
    groups = [[i for i, p in enumerate(pairs) if p is None], [i for i, p in enumerate(pairs) if p is not None]]
    for indices in groups:
        if not indices:
            continue
        batch_texts = [texts[i] for i in indices]
        batch_pairs = [pairs[i] for i in indices] if pairs[indices[0]] is not None else None
        enc = tokenizer(batch_texts, batch_pairs, truncation=False, **kwargs)
        for b, i in enumerate(indices):
            n = len(enc["input_ids"][b])
            if max_length is not None and n > max_length:
                out[i] = tokenize(tokenizer, texts[i], pairs[i], max_length=max_length)
            else:
                out[i] = _from_batch(tokenizer, enc, b, texts[i], pairs[i], n, False)
    return [t for t in out if t is not None]


def tokenize(
    tokenizer: Any, text: str, pair: str | None = None, max_length: int | None = None
) -> TokenizedText:
    """Tokenize one text (and optional pair) with offsets and word alignment."""
    if getattr(tokenizer, "is_word_level", False):
        return _word_level(tokenizer, text, pair)
    require_text(text)
    if pair is not None:
        require_text(pair, "pair text")
    kwargs: dict[str, Any] = dict(add_special_tokens=True, return_offsets_mapping=True, verbose=False)
    enc = tokenizer([text], [pair] if pair is not None else None, truncation=False, **kwargs)
    full_length = len(enc["input_ids"][0])
    truncated = max_length is not None and full_length > max_length
    if truncated:  # again, cut to the window (special tokens kept)
        strategy = "longest_first" if pair is not None else True
        enc = tokenizer([text], [pair] if pair is not None else None, truncation=strategy,
                        max_length=max_length, **kwargs)
    return _from_batch(tokenizer, enc, 0, text, pair, full_length, truncated)


def tokenize_target(tokenizer: Any, target: str, max_length: int | None = None) -> list[int]:
    """Label ids for a decoder target text (with the model's end-of-sequence token)."""
    require_text(target, "target text")
    kwargs: dict[str, Any] = {"verbose": False}
    if max_length:
        kwargs.update(truncation=True, max_length=max_length)
    return list(tokenizer(text_target=target, **kwargs)["input_ids"])
