"""What the Tokens tab shows, without Qt: the text box's tokens under model A, the counts above them, the
truncation banner, and model B's tokens of the same text while two models are compared.

``TokensState.set_tokenized(tt)`` takes the window's ``TokenizedText`` (None or empty: nothing to show);
``show_hint(text)`` says why there are none. Derived: ``counts()`` (tokens, words, words split into subwords,
special tokens), ``banner()`` (the truncation line or None), ``b_request()`` (the text and pair B tokenizes, or
None). ``set_b(tt_b)`` keeps B's tokens; ``b_counts_title(name_b)`` is B's column title. Events:
``tokens_changed`` (A's tokens or hint), ``b_changed`` (B's tokens: arrived, or cleared for a new request).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lm_workbench.observable import EventGroup


@dataclass(frozen=True)
class TokenCounts:
    tokens: int
    words: int  # word groups that are not special tokens
    split: int  # words cut into more than one subword
    special: int


class TokensState:
    def __init__(self) -> None:
        self.tokenized: Any = None  # A's TokenizedText (non-empty), or None
        self.hint = ""  # why there are no tokens ("" when there are, or nothing to say)
        self.tokenized_b: Any = None  # B's TokenizedText of A's text and pair, or None
        self.events = EventGroup("tokens_changed", "b_changed")

    def set_tokenized(self, tt: Any) -> None:
        self.tokenized = tt if tt is not None and len(tt) else None
        self.hint = ""
        self.set_b(None)
        self.events.tokens_changed.emit()

    def show_hint(self, text: str) -> None:
        self.tokenized, self.hint = None, text
        self.set_b(None)
        self.events.tokens_changed.emit()

    def set_b(self, tt_b: Any) -> None:
        self.tokenized_b = tt_b
        self.events.b_changed.emit()

    # ------------------------------------------------------------- derived
    def counts(self) -> TokenCounts | None:
        tt = self.tokenized
        if tt is None:
            return None
        groups = tt.word_groups()
        return TokenCounts(tokens=len(tt), words=sum(1 for g in groups if not tt.special[g[0]]),
                           split=sum(1 for g in groups if len(g) > 1), special=sum(tt.special))

    def banner(self) -> str | None:
        """The truncation banner's line, or None when the text fits the model's window."""
        message = self.tokenized.truncation_message if self.tokenized is not None else None
        return "⚠ Truncated: " + message + "." if message else None

    def b_request(self) -> tuple[str, str | None] | None:
        """(text, pair) model B tokenizes: A's, once A's tokens are there."""
        return (self.tokenized.text, self.tokenized.pair) if self.tokenized is not None else None

    def b_title(self, name_b: str) -> str:
        return f"B: {name_b} · {len(self.tokenized_b)} tokens" if self.tokenized_b is not None else f"B: {name_b}"
