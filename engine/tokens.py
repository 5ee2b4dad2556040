"""Tokenize text the way the model sees it, keeping the way back to the text.

Each token carries its character span in the original text, the index of the
word it belongs to (the tokenizer's pre-tokenised words, so subwords of one
word share an index) and its segment (0 = text, 1 = pair, None = special).
Texts longer than the model's window are cut to one window, and the result says which of the text's
own tokens it kept (``TextWindow``: "tokens a–b of n", specials excluded, 1-based, inclusive). Where the window
sits is ``keep`` (the rule that picks it per model is ``lm_workbench.engine.text_window``):

- ``"start"``: the first window (a pair: the tokenizer's ``longest_first``), as a whole-text view reads a text;
- ``"end"``: the last window, as a decoder reads a prompt (the answer is about the last position);
- ``"masks"``: a window holding every mask token (``is_mask``), with as much context on both sides as fits;
  masks further apart than one window are refused in one line; a text without a mask keeps the first window.

Every window keeps the tokenizer's specials ([CLS]/[SEP], <s>/</s>, a BOS) and ``window − specials`` text
tokens, cut from one encoding of the whole text (so the kept tokens are exactly the whole text's, offsets into
the whole text included).
A word-level tokenizer (ELMo's ``WordTokenizer``, ``is_word_level``) gives
words with their offsets instead, one word per token.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.text_input import require_text


KEEPS = ("start", "end", "masks")


@dataclass(frozen=True)
class TextWindow:
    """The text's own tokens (specials excluded) a model read: ``first``..``last`` (1-based, inclusive) of
    ``total``. ``last < first`` when the text gave no tokens."""

    first: int
    last: int
    total: int

    @property
    def cut(self) -> bool:
        return self.first > 1 or self.last < self.total

    @property
    def note(self) -> str:
        return f"tokens {self.first}–{self.last} of {self.total}"

    @classmethod
    def whole(cls, total: int) -> "TextWindow":
        return cls(1, total, total)


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
    window: TextWindow | None = None  # the text's (segment 0) tokens kept; None: not known (ids given as such)
    pair_window: TextWindow | None = None  # the pair's (segment 1), with a pair
    keep: str = "start"  # where the window sits (see the module)

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def window_note(self) -> str | None:
        """"tokens a–b of n" (and the pair's) when the window cut the text, else None."""
        parts = []
        if self.window is not None and self.window.cut:
            parts.append(self.window.note)
        if self.pair_window is not None and self.pair_window.cut:
            parts.append(f"pair {self.pair_window.note}")
        if not parts:
            return None
        if self.pair_window is not None and len(parts) == 1 and not parts[0].startswith("pair"):
            parts[0] = f"text {parts[0]}"
        return "; ".join(parts)

    @property
    def truncation_message(self) -> str | None:
        if not self.truncated:
            return None
        read = f" ({self.window_note})" if self.window_note else ""
        if self.keep == "end":
            return (f"the text has {self.full_length} tokens; the model reads the last {len(self.ids)}{read}, "
                    "the start was cut off")
        if self.keep == "masks" and self.window is not None and self.window.first > 1:
            return (f"the text has {self.full_length} tokens; the model reads {len(self.ids)} around the masks"
                    f"{read}, the rest was cut off")
        return f"the text has {self.full_length} tokens; the model reads {len(self.ids)}{read}, the rest was cut off"

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
        window=TextWindow.whole(segments.count(0)),
        pair_window=TextWindow.whole(segments.count(1)) if pair is not None else None,
    )


def _word_level(tokenizer: Any, text: str, pair: str | None) -> TokenizedText:
    """A word-level model's tokens (ELMo: words, no special tokens, no window)."""
    require_text(text)
    if pair is not None:
        raise WorkbenchError("this model reads one text at a time; it takes no pair text")
    words = tokenizer.tokenize_words(text)
    n = len(words["ids"])
    return TokenizedText(text=text, pair=None, ids=words["ids"], tokens=words["tokens"], offsets=words["offsets"],
                         word_ids=words["word_ids"], segments=[0] * n, special=[False] * n, full_length=n,
                         window=TextWindow.whole(n))


def is_mask(tokenizer: Any, token: str, token_id: int) -> bool:
    """A token a model fills in: the tokenizer's mask token, or a T5-style sentinel (``<extra_id_N>``)."""
    mask_id = getattr(tokenizer, "mask_token_id", None)
    return (mask_id is not None and token_id == mask_id) or bool(_SENTINEL.match(token or ""))


_SENTINEL = re.compile(r"^<extra_id_\d+>$")


def window_span(total: int, room: int, keep: str, masks: Sequence[int] = ()) -> tuple[int, int]:
    """(first, count): the 0-based first text token and how many a window of ``room`` text tokens keeps of
    ``total`` under ``keep`` (``masks``: the text-token indices of the masks, for ``"masks"``); a one-line
    ``WorkbenchError`` when the masks are further apart than the window."""
    if keep not in KEEPS:
        raise ValueError(f"keep is one of {KEEPS}, not {keep!r}")
    if room <= 0:
        raise WorkbenchError(f"the model's window has no room for the text's tokens (its specials take {-room} "
                             "more than it holds)" if room < 0 else "the model's window has no room for text tokens")
    if total <= room:
        return 0, total
    if keep == "end":
        return total - room, room
    if keep == "masks" and masks:
        low, high = min(masks), max(masks)
        span = high - low + 1
        if span > room:
            raise WorkbenchError(f"the masks are {span} tokens apart (tokens {low + 1} and {high + 1} of {total}) "
                                 f"and the model reads {room} text tokens at a time: put them closer together, "
                                 "or ask about them one at a time")
        first = min(max(0, low - (room - span) // 2), total - room)
        return first, room
    return 0, room


def _cut(tok: TokenizedText, max_length: int, keep: str, mask: Callable[[str, int], bool] | None) -> TokenizedText:
    """The whole text's encoding ``tok`` cut to a window of ``max_length`` tokens under ``keep``."""
    text_at = [i for i, s in enumerate(tok.segments) if s == 0]
    if not text_at:
        return tok
    head = [i for i in range(text_at[0]) if tok.segments[i] is None]
    tail = [i for i in range(text_at[-1] + 1, len(tok.ids)) if tok.segments[i] is None]
    room = max_length - len(head) - len(tail)
    masks = [k for k, i in enumerate(text_at) if mask is not None and mask(tok.tokens[i], tok.ids[i])]
    first, count = window_span(len(text_at), room, keep, masks)
    if count == len(text_at):
        return tok
    kept = head + text_at[first:first + count] + tail
    pick = lambda values: [values[i] for i in kept]  # noqa: E731
    return replace(tok, ids=pick(tok.ids), tokens=pick(tok.tokens), offsets=pick(tok.offsets),
                   word_ids=pick(tok.word_ids), segments=pick(tok.segments), special=pick(tok.special),
                   extra_inputs={k: pick(v) for k, v in tok.extra_inputs.items()}, truncated=True,
                   window=TextWindow(first + 1, first + count, len(text_at)), keep=keep)


def tokenize_many(
    tokenizer: Any, texts: Sequence[str], pairs: Sequence[str | None] | None = None, max_length: int | None = None,
    keep: str = "start",
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
                out[i] = tokenize(tokenizer, texts[i], pairs[i], max_length=max_length, keep=keep)
            else:
                out[i] = replace(_from_batch(tokenizer, enc, b, texts[i], pairs[i], n, False),
                                 keep=keep if pairs[i] is None else "start")
    return [t for t in out if t is not None]


def tokenize(
    tokenizer: Any, text: str, pair: str | None = None, max_length: int | None = None, keep: str = "start"
) -> TokenizedText:
    """Tokenize one text (and optional pair) with offsets and word alignment, cut to a window of ``max_length``
    tokens placed by ``keep`` (see the module; a pair always keeps its start)."""
    if keep not in KEEPS:
        raise ValueError(f"keep is one of {KEEPS}, not {keep!r}")
    if getattr(tokenizer, "is_word_level", False):
        return _word_level(tokenizer, text, pair)
    require_text(text)
    if pair is not None:
        require_text(pair, "pair text")
        keep = "start"
    kwargs: dict[str, Any] = dict(add_special_tokens=True, return_offsets_mapping=True, verbose=False)
    enc = tokenizer([text], [pair] if pair is not None else None, truncation=False, **kwargs)
    full_length = len(enc["input_ids"][0])
    whole = replace(_from_batch(tokenizer, enc, 0, text, pair, full_length, False), keep=keep)
    if max_length is None or full_length <= max_length:
        return whole
    if pair is None:
        mask = (lambda token, token_id: is_mask(tokenizer, token, token_id)) if keep == "masks" else None
        return _cut(whole, max_length, keep, mask)
    # a pair: the tokenizer's longest_first cut (special tokens kept), and how much of each segment it kept
    enc = tokenizer([text], [pair], truncation="longest_first", max_length=max_length, **kwargs)
    cut = _from_batch(tokenizer, enc, 0, text, pair, full_length, True)
    return replace(cut, window=TextWindow(1, cut.segments.count(0), whole.window.total),
                   pair_window=TextWindow(1, cut.segments.count(1), whole.pair_window.total))


def cut_ids(tokenizer: Any, ids: Sequence[int], max_length: int | None, keep: str = "end"
            ) -> tuple[list[int], TextWindow]:
    """A prompt's ids (as a decoder keeps them: the tokenizer's leading specials, e.g. a BOS, then text and
    generated tokens) cut to ``max_length`` under ``keep`` ("end": the last window), and the window kept."""
    ids = [int(i) for i in ids]
    head = leading_specials(tokenizer, ids)
    total = len(ids) - head
    if max_length is None or len(ids) <= max_length:
        return ids, TextWindow.whole(total)
    first, count = window_span(total, max_length - head, keep)
    return ids[:head] + ids[head + first:head + first + count], TextWindow(first + 1, first + count, total)


def leading_specials(tokenizer: Any, ids: Sequence[int]) -> int:
    """How many of ``ids`` are the specials the tokenizer puts before a text (a decoder's BOS; 0 for GPT-2)."""
    probe = tokenizer(["a"], add_special_tokens=True, verbose=False)
    try:
        sequence = probe.sequence_ids(0)
    except (AttributeError, ValueError):  # a slow tokenizer keeps no sequence ids: its first ids that are special
        special = set(getattr(tokenizer, "all_special_ids", ()))
        sequence = [None if i in special else 0 for i in probe["input_ids"][0]]
    template = list(probe["input_ids"][0])
    count = 0
    for position, segment in enumerate(sequence):
        if segment is not None:
            break
        if position < len(ids) and ids[position] == template[position]:
            count += 1
    return count


def tokenize_target(tokenizer: Any, target: str, max_length: int | None = None) -> list[int]:
    """Label ids for a decoder target text (with the model's end-of-sequence token)."""
    require_text(target, "target text")
    kwargs: dict[str, Any] = {"verbose": False}
    if max_length:
        kwargs.update(truncation=True, max_length=max_length)
    return list(tokenizer(text_target=target, **kwargs)["input_ids"])
