"""Where the words are: occurrences of words in tokenized lines.

A "word" is one of the tokenizer's own pre-tokenised words (what its
pre-tokenizer splits on: whitespace and punctuation for BERT, the
space-prefixed chunks of byte-level BPE, ...), the unit the tokenizer's
``word_ids`` number. Matching is case-insensitive on the word's text in the
line, so "Bank" and "bank" are one word and "banks" is another.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.tokens import TokenizedText


@dataclass(frozen=True)
class Occurrence:
    """One occurrence of a word: its line, its word index and its token/character spans.

    ``line`` is 0-based into the corpus; ``word_index`` is the 0-based index of
    the word among the line's pre-tokenised words; tokens ``token_start`` up to
    ``token_end`` (exclusive) are its subwords in the tokenized line; characters
    ``char_start:char_end`` of the line are its text.
    """

    line: int
    word_index: int
    word: str
    token_start: int
    token_end: int
    char_start: int
    char_end: int

    @property
    def key(self) -> str:
        """The word as matched: case-folded."""
        return normalise_word(self.word)


def normalise_word(word: str) -> str:
    return word.strip().casefold()


def normalise_words(words: Iterable[str] | None) -> frozenset[str] | None:
    """Case-folded word filter; None means every word. Refuses blanks."""
    if words is None:
        return None
    out = frozenset(normalise_word(w) for w in words)
    if not out or "" in out:
        raise WorkbenchError("the word filter has an empty word; type the words to look for, or none for every word")
    return out


def find_occurrences(tokenized: TokenizedText, words: set[str] | frozenset[str] | None,
                     line: int = 0) -> list[Occurrence]:
    """Every pre-tokenised word of ``tokenized`` (segment 0) in ``words`` (case-insensitive; None = all).

    A word whose subwords were cut by truncation is left out when its last
    token is the last one the window kept (it may have lost subwords).
    """
    wanted = None if words is None else {normalise_word(w) for w in words}
    text = tokenized.text
    found: list[Occurrence] = []
    groups = [g for g in tokenized.word_groups() if tokenized.word_ids[g[0]] is not None
              and tokenized.segments[g[0]] == 0]
    if tokenized.truncated and groups:
        groups = groups[:-1]  # the last kept word may be missing subwords beyond the window
    for group in groups:
        spans = [tokenized.offsets[i] for i in group if tokenized.offsets[i][1] > tokenized.offsets[i][0]]
        if not spans:  # e.g. a lone word-boundary marker with no characters
            continue
        start = min(s for s, _ in spans)
        end = max(e for _, e in spans)
        surface = text[start:end]
        stripped = surface.strip()
        if not stripped:
            continue
        start += len(surface) - len(surface.lstrip())
        end = start + len(stripped)
        if wanted is not None and normalise_word(stripped) not in wanted:
            continue
        found.append(Occurrence(
            line=line,
            word_index=int(tokenized.word_ids[group[0]]),
            word=stripped,
            token_start=group[0],
            token_end=group[-1] + 1,
            char_start=start,
            char_end=end,
        ))
    return found
