"""Linear probes per layer, the control task, and the held-out split.

A probe is a multinomial logistic regression (scikit-learn, on standardised
features) fitted on the training rows of one layer and scored by accuracy on
the held-out rows. Rows are split by *sentence* (every word of a sentence is
on the same side), seeded; a sentence task's rows (one per sentence) are held out stratified by label
(``held_out_rows``, the label rule of ``lm_workbench.engine.data.labels``).

Control task (Hewitt & Liang 2019): every word type (its case-folded form)
gets one label, drawn once with a seed from the empirical distribution of the
training labels, and every occurrence of the type carries it, in training and
test alike; types that occur only in the test rows are drawn the same way.
A probe that scores well on the control task memorises word identity rather
than reading the property off the representation; selectivity is task
accuracy minus control accuracy. For sentence tasks the control labels are
the task's labels shuffled across sentences (seeded).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Sequence

import numpy as np

from lm_workbench.engine.errors import WorkbenchError

TEST_FRACTION = 0.2
MAX_ITER = 100  # lbfgs iterations: on the benchmark's 10,000 words, accuracies within 0.3 points of 300's


@dataclass(frozen=True)
class Split:
    train: np.ndarray  # row indices
    test: np.ndarray


def split_by_sentence(sentence: np.ndarray, test_fraction: float = TEST_FRACTION, seed: int = 0) -> Split:
    """Held-out rows by sentence: a seeded ``test_fraction`` of the sentences (at least one) is held out."""
    sentence = np.asarray(sentence)
    ids = np.unique(sentence)
    if ids.size < 2:
        raise WorkbenchError("a probe needs at least two sentences (one to train on, one to test on)")
    rng = np.random.default_rng(seed)
    n_test = min(ids.size - 1, max(1, int(round(ids.size * test_fraction))))
    held = rng.permutation(ids)[:n_test]
    is_test = np.isin(sentence, held)
    return Split(np.flatnonzero(~is_test), np.flatnonzero(is_test))


def held_out_rows(kind: str, labels: Sequence[str], groups: np.ndarray, seed: int = 0) -> tuple[Split, list[str]]:
    """The probe's held-out rows and what the label rule says about them (``lm_workbench.engine.data.labels``).

    A sentence task holds out a stratified ``TEST_FRACTION`` of the sentences: each label in proportion, never a
    label's last example (a label too rare to split stays in training, said). A token task holds out whole
    sentences (``split_by_sentence``); a tag that then occurs only in held-out rows is named in a note (the probe
    cannot answer it there)."""
    from lm_workbench.engine.data.labels import stratified_holdout

    if kind == "sentence":
        held = stratified_holdout([str(x) for x in labels], TEST_FRACTION, seed, what="the held-out rows")
        return Split(np.asarray(held.train, dtype=np.int64), np.asarray(held.held, dtype=np.int64)), held.notes
    split = split_by_sentence(groups, seed=seed)
    train = {str(labels[i]) for i in split.train}
    test = [str(labels[i]) for i in split.test]
    unseen = sorted(set(test) - train)
    notes = []
    if unseen:
        rows = sum(1 for t in test if t in set(unseen))
        notes = [f"tag(s) {', '.join(map(repr, unseen))} occur only in held-out sentences ({rows} row(s)): the "
                 "probe never sees them in training, so it cannot answer them there"]
    return split, notes


def word_type(word: str) -> str:
    return word.casefold()


def control_labels(words: Sequence[str], labels: Sequence[str], train: np.ndarray, seed: int = 0) -> list[str]:
    """One label per word type, drawn from the training labels' distribution (see the module doc).

    The draw is over the sorted types with ``numpy.random.default_rng(seed)``,
    so the same seed, words and training labels give the same control labels.
    """
    train_labels = [labels[i] for i in train]
    if not train_labels:
        raise WorkbenchError("the control task needs training labels")
    values, counts = np.unique(np.asarray(train_labels, dtype=object).astype(str), return_counts=True)
    types = sorted({word_type(w) for w in words})
    rng = np.random.default_rng(seed)
    drawn = rng.choice(len(values), size=len(types), p=counts / counts.sum())
    label_of = {t: str(values[k]) for t, k in zip(types, drawn)}
    return [label_of[word_type(w)] for w in words]


def shuffled_labels(labels: Sequence[str], seed: int = 0) -> list[str]:
    """The sentence-task control: the labels permuted across sentences (seeded)."""
    order = np.random.default_rng(seed).permutation(len(labels))
    return [labels[i] for i in order]


def majority_rate(train_labels: Sequence[str], test_labels: Sequence[str]) -> float:
    """Accuracy on the test labels of always answering the most frequent training label."""
    values, counts = np.unique(np.asarray(train_labels, dtype=str), return_counts=True)
    top = values[np.argmax(counts)]
    return float(np.mean(np.asarray(test_labels, dtype=str) == top))


def probe_accuracy(x: np.ndarray, labels: Sequence[str], split: Split, seed: int = 0) -> float:
    """Held-out accuracy of a logistic-regression probe on rows ``x`` [n, H] with ``labels``."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    y = np.asarray(labels, dtype=str)
    x = np.asarray(x, dtype=np.float32)
    train_y = y[split.train]
    if np.unique(train_y).size < 2:  # one class: the probe can only answer it
        return float(np.mean(y[split.test] == train_y[0]))
    probe = make_pipeline(StandardScaler(), LogisticRegression(max_iter=MAX_ITER, random_state=seed))
    probe.fit(x[split.train], train_y)
    return float(np.mean(probe.predict(x[split.test]) == y[split.test]))


@dataclass(frozen=True)
class LayerScore:
    layer: int
    accuracy: float
    control_accuracy: float

    @property
    def selectivity(self) -> float:
        return self.accuracy - self.control_accuracy


def _score_layer(layer: int, x: np.ndarray, labels: Sequence[str], control: Sequence[str], split: Split,
                 seed: int) -> LayerScore:
    return LayerScore(layer, probe_accuracy(x, labels, split, seed), probe_accuracy(x, control, split, seed))


def probe_layers(vectors: dict[int, np.ndarray], labels: Sequence[str], control: Sequence[str], split: Split, *,
                 seed: int = 0, n_jobs: int = -1) -> Iterator[LayerScore]:
    """Task and control probes for every layer, fitted in parallel (joblib threads); scores in layer order.

    A generator: each layer's score comes as soon as it and the layers before
    it are done, so a caller can report it (and stop early by closing it).
    The parallelism is across layers, so each fit gets one BLAS thread: nested
    BLAS threads oversubscribe the cores, and on a busy machine made a
    1,600 x 128 fit 50 times slower (1.5 s instead of 0.03 s).
    """
    import warnings

    from joblib import Parallel, delayed
    from sklearn.exceptions import ConvergenceWarning
    from threadpoolctl import threadpool_limits

    if len(labels) != len(control):
        raise WorkbenchError("control labels must be parallel to the task labels")
    parallel = Parallel(n_jobs=n_jobs, prefer="threads", return_as="generator")
    # The filter is set here, once, not in the worker threads: warning filters are global, and threads
    # restoring them in turn would leak warnings. The iteration cap keeps a sweep's time bounded.
    with threadpool_limits(limits=1, user_api="blas"), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        yield from parallel(delayed(_score_layer)(layer, x, labels, control, split, seed)
                            for layer, x in vectors.items())
