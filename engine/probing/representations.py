"""Every layer's vectors for a probing task, computed once per corpus.

Token tasks: each tagged word's vector at every hidden state (0 = the
embedding output .. L) is the mean of its subwords' vectors. The words are
joined by spaces into one line per sentence and encoded through
``lm_workbench.engine.embeddings.extract`` (with an ``ActivationCache``, keyed by model
and corpus, a second run costs no forward pass). That extraction pools each
of the tokenizer's own pre-tokenised words; a task word the tokenizer splits
further ("U.S." -> "U", ".", "S", ".") gets the mean of those pieces weighted
by their subword counts, which is exactly the mean of its subwords. Words
the model never sees (cut off past its window) are left out and counted.

Sentence tasks and STS: one pooled vector per text at every layer (mean,
[CLS] or the model's declared pooling), from one encoding pass
(``lm_workbench.engine.embeddings.sentence_embeddings``).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from typing import Any, Generator, Sequence

import numpy as np

from lm_workbench.engine.embeddings.activation_cache import ActivationCache
from lm_workbench.engine.embeddings.corpus import Corpus
from lm_workbench.engine.embeddings.extract import extract_occurrence_vectors
from lm_workbench.engine.embeddings.sentence_embeddings import sentence_vectors_by_layer
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.probing.readers import TokenTask
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, Progress


@dataclass
class WordVectors:
    """Per-word vectors of a token task: rows are the words the model saw, in task order."""

    layers: list[int]
    vectors: dict[int, np.ndarray]  # layer -> float32 [n, H]
    sentence: np.ndarray  # int [n]: which sentence each row is in
    words: list[str]  # the word of each row, as written
    tags: list[str]  # its tag
    left_out: int  # task words with no vector (beyond the model's window)
    from_cache: bool
    index: np.ndarray | None = None  # int [n]: each row's word, as its place among all the task's words


def task_corpus(task: TokenTask) -> Corpus:
    """The task as a corpus: one line per sentence, its words joined by single spaces."""
    return Corpus([" ".join(words) for words in task.sentences], source=task.source)


def _word_starts(words: Sequence[str]) -> list[int]:
    starts, at = [], 0
    for word in words:
        starts.append(at)
        at += len(word) + 1
    return starts


def all_layers(loaded: Any) -> list[int]:
    """Hidden-state indices 0..L of the loaded model."""
    return list(range(int(loaded.info.layers) + 1))


def word_vectors(loaded: Any, task: TokenTask, *, layers: Sequence[int] | None = None,
                 cache: ActivationCache | None = None, batch_size: int = 16,
                 cancel: CancelToken = NEVER_CANCELLED) -> Generator[Progress, None, WordVectors]:
    """Every task word's vector at ``layers`` (default: every layer 0..L) from one encoding pass (none on a
    cache hit)."""
    layers = all_layers(loaded) if layers is None else [int(x) for x in layers]
    corpus = task_corpus(task)
    table = yield from extract_occurrence_vectors(loaded, corpus, words=None, layers=layers, pooling="mean",
                                                  cache=cache, batch_size=batch_size, cancel=cancel)
    offsets = np.cumsum([0] + [len(s) for s in task.sentences])  # first global row of each sentence
    starts = [_word_starts(words) for words in task.sentences]
    target = np.empty(len(table.occurrences), dtype=np.int64)  # task word (global index) of each occurrence
    weight = np.empty(len(table.occurrences), dtype=np.float64)  # its subword count
    for i, occ in enumerate(table.occurrences):
        target[i] = offsets[occ.line] + bisect_right(starts[occ.line], occ.char_start) - 1
        weight[i] = occ.token_end - occ.token_start
    total = int(offsets[-1])
    counts = np.bincount(target, weights=weight, minlength=total)  # subwords per task word
    seen = np.flatnonzero(counts > 0)
    if seen.size == 0:
        raise WorkbenchError(f"the model saw none of the words of {task.source}")
    # one sparse [seen words, occurrences] matrix of subword-count weights turns occurrences into words
    from scipy.sparse import csr_matrix

    pool = csr_matrix((weight / counts[target], (target, np.arange(target.size))),
                      shape=(total, target.size))[seen]
    vectors: dict[int, np.ndarray] = {}
    for layer in layers:
        cancel.check()
        source = np.asarray(table.vectors[layer], dtype=np.float32)  # [occurrences, H]
        vectors[layer] = np.asarray(pool @ source, dtype=np.float32)
    sentence = np.repeat(np.arange(len(task.sentences)), [len(s) for s in task.sentences])[seen]
    flat_words = [w for s in task.sentences for w in s]
    flat_tags = [t for s in task.tags for t in s]
    return WordVectors(layers, vectors, sentence, [flat_words[i] for i in seen], [flat_tags[i] for i in seen],
                       total - int(seen.size), table.from_cache, seen)


def sentence_vectors_all_layers(loaded: Any, texts: Sequence[str], pooling: str = "mean", *,
                                cancel: CancelToken = NEVER_CANCELLED
                                ) -> Generator[Progress, None, dict[int, np.ndarray]]:
    """{layer: [n, H]} pooled sentence vectors at every layer 0..L, from one encoding pass."""
    return (yield from sentence_vectors_by_layer(loaded, texts, pooling, all_layers(loaded), cancel=cancel))
