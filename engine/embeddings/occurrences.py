"""Where the words are: occurrences of words in tokenized lines.

How a word is found depends on the script it is written in, decided per
word by the Unicode blocks of its characters
(``lm_workbench.engine.text_scripts``), never per corpus:

- a word in a script written with spaces (Latin, Cyrillic, Greek, Arabic,
  ...) is one of the tokenizer's own pre-tokenised words (what its
  pre-tokenizer splits on: whitespace and punctuation for BERT, the
  space-prefixed chunks of byte-level BPE, ...), the unit the tokenizer's
  ``word_ids`` number: "bank" is not found inside "banking";
- a word with a character of a script written without spaces (Han, kana,
  Hangul, Thai, Lao, Khmer, Myanmar, ...) is found as a run of characters
  anywhere in the line, provided both of its ends fall on boundaries between
  the model's tokens (from the fast tokenizer's character offsets; a token's
  leading or trailing whitespace does not count). 東京 is found in
  我住在東京。 when the tokenizer splits 東京 from its neighbours, and not
  where one token spans 京 and the character after it, since no vector of
  the model belongs to 東京 alone there. Where such a word has a letter of a
  spaced script at an end ("東京tower"), that end must not touch another
  letter or digit ("東京towers" does not count).

Matching is case-insensitive (case folding), so "Bank" and "bank" are one
word and "banks" is another.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Iterable

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.text_scripts import UNSPACED_SCRIPT_NAMES, unspaced_script, written_without_spaces
from lm_workbench.engine.tokens import TokenizedText

MATCHING_VERSION = 2  # bump when the rule above changes: cached occurrence lists depend on it

HOW_WORDS_ARE_FOUND = (
    "words are matched whole and case-insensitively on the tokenizer's words; a word in a script written "
    f"without spaces ({UNSPACED_SCRIPT_NAMES}) is found inside longer runs of text wherever both of its ends "
    "fall between the model's tokens"
)


@dataclass(frozen=True)
class Occurrence:
    """One occurrence of a word: its line, its word index and its token/character spans.

    ``line`` is 0-based into the corpus; ``word_index`` is the 0-based index,
    among the line's pre-tokenised words, of the word its first token belongs
    to (a word found inside a run of unspaced text may span several of them,
    or part of one); tokens ``token_start`` up to ``token_end`` (exclusive)
    are its subwords in the tokenized line; characters ``char_start:char_end``
    of the line are its text.
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


def _text_tokens(tokenized: TokenizedText) -> list[tuple[int, int, int]]:
    """(token index, start, end) of each text token (segment 0) with its whitespace trimmed off the span."""
    text = tokenized.text
    out = []
    for i, ((start, end), segment) in enumerate(zip(tokenized.offsets, tokenized.segments)):
        if segment != 0 or end <= start:
            continue
        piece = text[start:end]
        stripped = piece.strip()
        if not stripped:
            continue
        start += len(piece) - len(piece.lstrip())
        out.append((i, start, start + len(stripped)))
    return out


def _whole_words(tokenized: TokenizedText, wanted: set[str] | None, line: int) -> list[Occurrence]:
    """Pre-tokenised words of segment 0 whose folded text is in ``wanted`` (None = every word)."""
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
        found.append(Occurrence(line=line, word_index=int(tokenized.word_ids[group[0]]), word=stripped,
                                token_start=group[0], token_end=group[-1] + 1, char_start=start, char_end=end))
    return found


def _folded(text: str) -> tuple[str, list[int], set[int], set[int]]:
    """``text`` case-folded character by character: (folded, original index of each folded position,
    folded positions where a character's folding starts, ... where one ends)."""
    parts, origin, starts, ends = [], [], set(), set()
    at = 0
    for i, char in enumerate(text):
        fold = char.casefold()
        starts.add(at)
        parts.append(fold)
        origin.extend([i] * len(fold))
        at += len(fold)
        ends.add(at)
    origin.append(len(text))
    return "".join(parts), origin, starts, ends


def _spaced_letter(char: str) -> bool:
    """A letter, digit or mark of a script written with spaces (where a spaced word's end must not touch)."""
    return unicodedata.category(char)[0] in "LNM" and unspaced_script(char) is None


def _runs(tokenized: TokenizedText, word: str, line: int) -> list[Occurrence]:
    """Occurrences of ``word`` (folded) as a run of characters whose ends fall between text tokens."""
    text = tokenized.text
    tokens = _text_tokens(tokenized)
    if not tokens:
        return []
    inside = [False] * (len(text) + 1)  # inside[p]: a token spans both text[p - 1] and text[p]
    for _, start, end in tokens:
        for p in range(start + 1, end):
            inside[p] = True
    last_kept = tokens[-1][0] if tokenized.truncated else None
    folded, origin, fold_starts, fold_ends = _folded(text)
    found: list[Occurrence] = []
    at = folded.find(word)
    while at >= 0:
        stop = at + len(word)
        occurrence = None
        if at in fold_starts and stop in fold_ends:
            s, e = origin[at], origin[stop - 1] + 1
            occurrence = _run_at(tokenized, tokens, inside, s, e, line, last_kept)
        if occurrence is None:
            at = folded.find(word, at + 1)
        else:
            found.append(occurrence)
            at = folded.find(word, stop)
    return found


def _run_at(tokenized: TokenizedText, tokens: list[tuple[int, int, int]], inside: list[bool], s: int, e: int,
            line: int, last_kept: int | None) -> Occurrence | None:
    """The occurrence at characters s:e if both ends fall between tokens and tokens cover it exactly."""
    text = tokenized.text
    if inside[s] or inside[e]:
        return None
    if _spaced_letter(text[s]) and s > 0 and _spaced_letter(text[s - 1]):
        return None
    if _spaced_letter(text[e - 1]) and e < len(text) and _spaced_letter(text[e]):
        return None
    covered = [(i, a, b) for i, a, b in tokens if a >= s and b <= e]
    if not covered or covered[0][1] != s or max(b for _, _, b in covered) != e:
        return None  # characters the tokenizer dropped, or a match cut off by the window
    first, last = covered[0][0], covered[-1][0]
    if last == last_kept:
        return None  # the window's last token: the word may go on in tokens the window cut
    word_id = tokenized.word_ids[first]
    return Occurrence(line=line, word_index=int(word_id) if word_id is not None else 0, word=text[s:e],
                      token_start=first, token_end=last + 1, char_start=s, char_end=e)


def find_occurrences(tokenized: TokenizedText, words: set[str] | frozenset[str] | None,
                     line: int = 0) -> list[Occurrence]:
    """Every occurrence in ``tokenized`` (segment 0) of ``words`` (case-insensitive; None = every
    pre-tokenised word), in text order; see the module doc for how a word is found.

    An occurrence whose tokens may have been cut by truncation is left out
    (its last token is the last one the window kept).
    """
    if words is None:
        return _whole_words(tokenized, None, line)
    wanted = {normalise_word(w) for w in words}
    runs = {w for w in wanted if written_without_spaces(w)}
    found = _whole_words(tokenized, wanted - runs, line) if wanted - runs else []
    for word in sorted(runs):
        found.extend(_runs(tokenized, word, line))
    found.sort(key=lambda o: (o.char_start, o.char_end, o.key))
    return found


def text_occurrences(lines: Iterable[str], word: str) -> int:
    """How many times ``word`` appears case-insensitively in ``lines`` as plain text, anywhere (to explain a
    word that was not found as a word)."""
    folded = normalise_word(word)
    return sum(_folded(line)[0].count(folded) for line in lines) if folded else 0
