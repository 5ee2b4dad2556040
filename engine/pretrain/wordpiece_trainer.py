"""A WordPiece vocabulary learnt the way ``tokenizers``' WordPieceTrainer learns one, with ties broken in a fixed
order, so the same corpus gives the same vocabulary on every machine and in every process.

``tokenizers``' trainer (Rust) counts words and pairs in hash maps seeded per process: when two pairs are equally
frequent, which is merged first depends on the process, and a course BERT built on two machines had two
vocabularies (issue 48). This trainer follows the same algorithm (Schuster & Nakajima 2012 as BERT's
open-source tokenizers learn it: BPE merges on words split into a first character and ``##``-continued
characters, until the vocabulary holds ``vocab_size`` entries) and merges, among equally frequent pairs, the one
whose two pieces sort first (Python string order). Ids: special tokens, then every character of the words (the
alphabet), then the ``##`` characters (each sorted), then the merged pieces in the order they were learnt.

Words come from the tokenizer's own normaliser and pre-tokeniser, so the vocabulary is learnt on exactly what
the tokenizer will later split. Pure Python with incremental pair counts: ~86k words of the Python docs to 8,000
entries in a few seconds on one core.
"""

from __future__ import annotations

import heapq
from collections import Counter, defaultdict
from typing import Any, Iterable

PREFIX = "##"


def count_words(texts: Iterable[str], tokenizer: Any) -> Counter:
    """{word: count} after ``tokenizer``'s normaliser and pre-tokeniser (a ``tokenizers.Tokenizer``)."""
    normalizer, pre = tokenizer.normalizer, tokenizer.pre_tokenizer
    counts: Counter = Counter()
    for text in texts:
        if normalizer is not None:
            text = normalizer.normalize_str(text)
        words = pre.pre_tokenize_str(text) if pre is not None else [(text, None)]
        counts.update(word for word, _ in words if word)
    return counts


def _merged(a: str, b: str) -> str:
    return a + (b[len(PREFIX):] if b.startswith(PREFIX) else b)


def learn_wordpiece_vocabulary(word_counts: dict[str, int], vocab_size: int, specials: list[str]) -> list[str]:
    """The vocabulary (a list; position = id) of at most ``vocab_size`` entries learnt from ``word_counts``.

    Deterministic: it depends on the words and counts alone, not on their order or the process. A vocabulary
    smaller than the specials plus the characters stops there (every character is kept, as tokenizers does).
    """
    vocab: list[str] = list(dict.fromkeys(specials))
    known = set(vocab)
    words = sorted(word_counts)  # fixed order for everything below
    counts = [int(word_counts[w]) for w in words]
    pieces = [[w[0]] + [PREFIX + c for c in w[1:]] for w in words]
    alphabet = sorted({c for w in words for c in w} - known)  # every character, as tokenizers' alphabet
    continued = sorted({q for p in pieces for q in p[1:]} - known)
    for token in alphabet + continued:
        vocab.append(token)
        known.add(token)

    pair_counts: dict[tuple[str, str], int] = defaultdict(int)
    where: dict[tuple[str, str], set[int]] = defaultdict(set)
    for i, symbols in enumerate(pieces):
        for pair in zip(symbols, symbols[1:]):
            pair_counts[pair] += counts[i]
            where[pair].add(i)
    heap = [(-n, pair) for pair, n in pair_counts.items()]
    heapq.heapify(heap)

    while len(vocab) < vocab_size and heap:
        negative, pair = heapq.heappop(heap)
        if pair_counts.get(pair, 0) != -negative or negative == 0:
            continue  # stale entry: the pair's count changed (a fresh entry was pushed) or it is gone
        new = _merged(*pair)
        changed: set[tuple[str, str]] = set()
        for i in sorted(where.pop(pair, ())):
            symbols = pieces[i]
            for old in zip(symbols, symbols[1:]):
                pair_counts[old] -= counts[i]
                changed.add(old)
                where[old].discard(i)
            out, j = [], 0
            while j < len(symbols):
                if j + 1 < len(symbols) and (symbols[j], symbols[j + 1]) == pair:
                    out.append(new)
                    j += 2
                else:
                    out.append(symbols[j])
                    j += 1
            pieces[i] = out
            for fresh in zip(out, out[1:]):
                pair_counts[fresh] += counts[i]
                where[fresh].add(i)
                changed.add(fresh)
        for p in changed:
            n = pair_counts.get(p, 0)
            if n <= 0:
                pair_counts.pop(p, None)
                where.pop(p, None)
            elif p != pair:
                heapq.heappush(heap, (-n, p))
        pair_counts.pop(pair, None)
        if new not in known:
            vocab.append(new)
            known.add(new)
    return vocab


__all__ = ["PREFIX", "count_words", "learn_wordpiece_vocabulary"]
