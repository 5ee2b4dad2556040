"""Tokenize text the way the model sees it, keeping the way back to the text.

Each token carries its character span in the original text, the index of the
word it belongs to (the tokenizer's pre-tokenised words, so subwords of one
word share an index) and its segment (0 = text, 1 = pair, None = special).
Texts longer than the model's window are truncated, and the result says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.text_input import require_text


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


def tokenize(
    tokenizer: Any, text: str, pair: str | None = None, max_length: int | None = None
) -> TokenizedText:
    """Tokenize one text (and optional pair) with offsets and word alignment."""
    require_text(text)
    if pair is not None:
        require_text(pair, "pair text")
    full = tokenizer(text, pair, add_special_tokens=True, truncation=False, verbose=False)
    full_length = len(full["input_ids"])
    truncated = max_length is not None and full_length > max_length
    kwargs: dict[str, Any] = dict(add_special_tokens=True, return_offsets_mapping=True, verbose=False)
    if truncated:
        kwargs.update(truncation="longest_first" if pair is not None else True, max_length=max_length)
    enc = tokenizer(text, pair, **kwargs)
    ids = list(enc["input_ids"])
    segments = enc.sequence_ids()
    special = [s is None for s in segments]
    extra = {
        name: list(enc[name])
        for name in ("token_type_ids",)
        if name in enc and name in getattr(tokenizer, "model_input_names", ())
    }
    return TokenizedText(
        text=text,
        pair=pair,
        ids=ids,
        tokens=tokenizer.convert_ids_to_tokens(ids),
        offsets=[tuple(o) for o in enc["offset_mapping"]],
        word_ids=enc.word_ids(),
        segments=list(segments),
        special=special,
        truncated=truncated,
        full_length=full_length,
        extra_inputs=extra,
    )


def tokenize_target(tokenizer: Any, target: str, max_length: int | None = None) -> list[int]:
    """Label ids for a decoder target text (with the model's end-of-sequence token)."""
    require_text(target, "target text")
    kwargs: dict[str, Any] = {"verbose": False}
    if max_length:
        kwargs.update(truncation=True, max_length=max_length)
    return list(tokenizer(text_target=target, **kwargs)["input_ids"])
