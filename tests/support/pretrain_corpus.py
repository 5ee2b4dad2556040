"""A seeded generator of simple English-like text from a small grammar, for pre-training tests.

The text is learnable on purpose: a sentence follows one of a few templates
(determiner, optional adjective, noun, verb, ...), each noun prefers a few
verbs and places, and documents keep to one topic animal, so a model's loss
can fall well below the unigram entropy of the words within a few hundred
steps. Documents are separated by blank lines, one sentence per line (the
``.txt`` corpus format of ``lm_workbench.engine.pretrain.corpus``).
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import numpy as np

DETERMINERS = ["the", "a", "every", "some", "this", "that"]
ADJECTIVES = ["big", "small", "red", "green", "old", "young", "quiet", "happy", "tired", "clever", "brown", "tall"]
NOUNS = ["dog", "cat", "bird", "horse", "fox", "mouse", "rabbit", "goat", "sheep", "duck", "frog", "bear"]
VERBS = ["sees", "chases", "follows", "likes", "watches", "finds", "helps", "meets", "hears", "carries"]
INTRANSITIVE = ["sleeps", "runs", "sings", "waits", "jumps", "eats", "plays", "rests"]
PLACES = ["garden", "forest", "river", "field", "house", "barn", "hill", "lake", "road", "farm"]
PREPOSITIONS = ["in", "near", "behind", "beside", "under"]
ADVERBS = ["slowly", "quickly", "quietly", "often", "again", "today"]


def _pick(rng: np.random.Generator, words: list[str], favourite: list[str] | None = None, p: float = 0.0) -> str:
    """A word, from ``favourite`` with probability ``p`` (the learnable dependencies)."""
    if favourite and rng.random() < p:
        return favourite[int(rng.integers(len(favourite)))]
    return words[int(rng.integers(len(words)))]


def _noun_phrase(rng: np.random.Generator, noun: str) -> list[str]:
    words = [_pick(rng, DETERMINERS)]
    if rng.random() < 0.5:
        words.append(_pick(rng, ADJECTIVES))
    return words + [noun]


def _sentence(rng: np.random.Generator, topic: int) -> str:
    """One sentence about the document's topic noun (index into NOUNS)."""
    noun = NOUNS[topic] if rng.random() < 0.6 else _pick(rng, NOUNS)
    k = NOUNS.index(noun)
    likes = [VERBS[k % len(VERBS)], VERBS[(k + 3) % len(VERBS)]]
    haunts = [PLACES[k % len(PLACES)], PLACES[(2 * k + 1) % len(PLACES)]]
    template = int(rng.integers(4))
    subject = _noun_phrase(rng, noun)
    if template == 0:
        obj = _noun_phrase(rng, _pick(rng, NOUNS))
        words = subject + [_pick(rng, VERBS, likes, 0.7)] + obj
    elif template == 1:
        words = subject + [_pick(rng, INTRANSITIVE)] + [_pick(rng, PREPOSITIONS), "the", _pick(rng, PLACES, haunts, 0.8)]
    elif template == 2:
        words = subject + ["is", _pick(rng, ADJECTIVES)]
    else:
        words = (["in", "the", _pick(rng, PLACES, haunts, 0.8), ","] + subject
                 + [_pick(rng, INTRANSITIVE), _pick(rng, ADVERBS)])
    text = " ".join(words) + " ."
    return text[0].upper() + text[1:]


def generate_documents(n_documents: int, seed: int = 0) -> list[list[str]]:
    """``n_documents`` documents of 3 to 7 sentences each, the same for the same seed."""
    rng = np.random.default_rng(seed)
    docs = []
    for _ in range(n_documents):
        topic = int(rng.integers(len(NOUNS)))
        docs.append([_sentence(rng, topic) for _ in range(int(rng.integers(3, 8)))])
    return docs


def write_corpus(path: Path, n_documents: int = 400, seed: int = 0) -> Path:
    """Write the generated corpus as a ``.txt`` file (blank line between documents); return the path."""
    docs = generate_documents(n_documents, seed)
    Path(path).write_text("\n\n".join("\n".join(doc) for doc in docs) + "\n", encoding="utf-8")
    return Path(path)


def unigram_entropy_of_ids(ids: list[list[int]], special_ids: set[int]) -> float:
    """Entropy in nats of the frequencies of the non-special token ids (an independent computation)."""
    counts = Counter(i for row in ids for i in row if i not in special_ids)
    total = sum(counts.values())
    return -sum(c / total * math.log(c / total) for c in counts.values())
