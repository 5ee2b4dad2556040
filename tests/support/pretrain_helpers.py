"""Helpers of the lm_workbench.engine.pretrain tests: a generated corpus, its documents, tokenizers of every family.

The text comes from the seeded grammar in ``tests.support.pretrain_corpus``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from tests.support.pretrain_corpus import ADJECTIVES, NOUNS, PLACES, VERBS, generate_documents

FAMILIES = ("bert", "gpt2", "bart", "t5")


def _long_line(n_words: int, seed: int) -> str:
    """One line of ``n_words`` words, far longer than a short example holds (packing must cut it)."""
    rng = np.random.default_rng([seed, 99])
    pool = ADJECTIVES + NOUNS + VERBS + PLACES + ["and", "the", "a", "then"]
    words = [pool[int(i)] for i in rng.integers(len(pool), size=n_words)]
    return " ".join(words) + "."


def write_corpus(path: Path, documents: int = 30, seed: int = 0, long_line_words: int = 0) -> Path:
    """A ``.txt`` corpus of ``documents`` documents (blank line between them, one sentence a line).

    With ``long_line_words`` the first document also gets one very long line.
    """
    docs = generate_documents(documents, seed)
    if long_line_words:
        docs[0] = docs[0][:1] + [_long_line(long_line_words, seed)] + docs[0][1:]
    path = Path(path)
    path.write_text("\n\n".join("\n".join(doc) for doc in docs) + "\n", encoding="utf-8")
    return path


def read_documents(path: Path) -> list[list[str]]:
    """The corpus's documents as lists of stripped non-empty lines (blank lines separate documents)."""
    docs: list[list[str]] = [[]]
    for line in Path(path).read_text(encoding="utf-8").split("\n"):
        text = line.strip()
        if text:
            docs[-1].append(text)
        elif docs[-1]:
            docs.append([])
    return [d for d in docs if d]


def train_all(root: Path, corpus: Path, vocab_size: int = 400, **kwargs: Any) -> dict[str, Any]:
    """Train every family's tokenizer on ``corpus`` into ``root/<family>``; return them by family."""
    from lm_workbench.engine.pretrain.corpus import corpus_lines
    from lm_workbench.engine.pretrain.tokenizer_training import train_tokenizer

    root = Path(root)
    return {family: train_tokenizer(family, corpus_lines([corpus]), root / family, vocab_size=vocab_size, **kwargs)
            for family in FAMILIES}
