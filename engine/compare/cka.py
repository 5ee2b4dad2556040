"""Layer × layer linear CKA between two models on the same texts, aligned at the word level.

Two models with different tokenizers (BERT's WordPiece, GPT-2's BPE, ELMo's
words) cut the same text into different tokens, so their token rows do not
line up. Words do: each text's whitespace-separated words are the items, and
a word's vector at a layer is the mean of its subwords' vectors, computed as
the probing tab computes it (``lm_workbench.engine.probing.representations.word_vectors``:
each model's own word alignment, a word its tokenizer splits further weighted
by its subword counts). Words one model never sees (past its window) are left
out of both. Entry ``[i, j]`` is the linear CKA (Kornblith et al. 2019,
``lm_workbench.engine.maths.similarity.linear_cka``) of model A's layer ``i`` and model
B's layer ``j``, layers 0 (the embeddings) to L.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generator, Sequence

import numpy as np

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.maths.similarity import linear_cka
from lm_workbench.engine.probing.readers import TokenTask
from lm_workbench.engine.probing.representations import word_vectors
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, Progress, relay, run_to_completion


@dataclass
class LayerCka:
    model_a: str
    model_b: str
    layers_a: list[int]  # hidden-state indices, 0 = the embeddings
    layers_b: list[int]
    words: list[str]  # the words compared (both models saw them), in text order
    cka: np.ndarray  # float [len(layers_a), len(layers_b)]

    def to_dict(self) -> dict[str, Any]:
        return {"model_a": self.model_a, "model_b": self.model_b, "layers_a": list(self.layers_a),
                "layers_b": list(self.layers_b), "words": list(self.words),
                "cka": [[float(v) for v in row] for row in self.cka]}


def text_words(texts: Sequence[str]) -> list[list[str]]:
    """Each non-empty text's whitespace-separated words."""
    return [t.split() for t in texts if t.split()]


def word_states(loaded: Any, sentences: list[list[str]], cancel: CancelToken = NEVER_CANCELLED
                ) -> Generator[Progress, None, tuple[np.ndarray, dict[int, np.ndarray]]]:
    """(each row's word as its place among all words, {layer: [rows, H]}) at every layer 0..L of ``loaded``."""
    task = TokenTask(sentences, [["-"] * len(s) for s in sentences], source="the compared texts")
    found = yield from word_vectors(loaded, task, cancel=cancel)
    return np.asarray(found.index), found.vectors


def layer_cka_job(model_a: Any, model_b: Any, texts: Sequence[str], cancel: CancelToken = NEVER_CANCELLED
                    ) -> Generator[Progress, None, LayerCka]:
    """A job: each model's word vectors (with progress), then the layer × layer CKA matrix."""
    sentences = text_words(texts)
    words = [w for s in sentences for w in s]
    if len(words) < 2:
        raise WorkbenchError("comparing two models' layers needs at least two words of text")
    states = []
    for name, loaded in (("model A", model_a), ("model B", model_b)):
        states.append((yield from relay(word_states(loaded, sentences, cancel),
                                        lambda p, name=name: Progress(p.done, p.total, f"{name}: {p.message}")
                                        if isinstance(p, Progress) else p)))
    (index_a, vec_a), (index_b, vec_b) = states
    common = np.intersect1d(index_a, index_b)
    if common.size < 2:
        raise WorkbenchError("the two models saw fewer than two of the same words")
    rows_a, rows_b = np.searchsorted(index_a, common), np.searchsorted(index_b, common)
    layers_a, layers_b = sorted(vec_a), sorted(vec_b)
    cka = np.empty((len(layers_a), len(layers_b)))
    for i, la in enumerate(layers_a):
        cancel.check()
        x = vec_a[la][rows_a]
        yield Progress(i, len(layers_a), f"CKA of model A's layer {la}")
        for j, lb in enumerate(layers_b):
            cka[i, j] = linear_cka(x, vec_b[lb][rows_b])
    yield Progress(len(layers_a), len(layers_a), "CKA done")
    return LayerCka(model_a.info.spec, model_b.info.spec, layers_a, layers_b, [words[k] for k in common], cka)


def layer_cka(model_a: Any, model_b: Any, texts: Sequence[str]) -> LayerCka:
    """The layer × layer linear CKA matrix of two loaded models on ``texts`` (see the module docstring)."""
    return run_to_completion(layer_cka_job(model_a, model_b, texts))
