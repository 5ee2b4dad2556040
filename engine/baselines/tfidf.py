"""TF-IDF features + logistic regression (scikit-learn), the "feature engineering" paradigm's baseline.

``fit_tfidf_lr`` fits ``TfidfVectorizer(**vectorizer)`` on the training texts and ``LogisticRegression(
**classifier)`` on its features, then scores the test texts. Settings are scikit-learn's own keyword arguments
(``ngram_range`` may be a list); an unknown one is a ``WorkbenchError`` naming it.
"""

from __future__ import annotations

import inspect
import time
from typing import Any

from lm_workbench.engine.baselines.result import BaselineResult, accuracy, majority_share
from lm_workbench.engine.errors import WorkbenchError

VECTORIZER_DEFAULTS: dict[str, Any] = {"ngram_range": [1, 2], "min_df": 1, "sublinear_tf": True}
CLASSIFIER_DEFAULTS: dict[str, Any] = {"C": 10.0, "max_iter": 1000}


def _checked(cls: type, values: dict[str, Any], what: str) -> dict[str, Any]:
    allowed = set(inspect.signature(cls.__init__).parameters) - {"self"}
    unknown = sorted(set(values) - allowed)
    if unknown:
        raise WorkbenchError(f"unknown {what} setting(s): {', '.join(unknown)} (scikit-learn's {cls.__name__} "
                             "takes e.g. " + ", ".join(sorted(allowed)[:8]) + ")")
    out = dict(values)
    if "ngram_range" in out:
        out["ngram_range"] = tuple(int(v) for v in out["ngram_range"])
    return out


def vectorizer_settings(values: dict[str, Any] | None) -> dict[str, Any]:
    """The defaults with ``values`` on top, checked against ``TfidfVectorizer``."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    return _checked(TfidfVectorizer, {**VECTORIZER_DEFAULTS, **(values or {})}, "TF-IDF vectorizer")


def classifier_settings(values: dict[str, Any] | None, seed: int) -> dict[str, Any]:
    """The defaults with ``values`` on top (``random_state`` = ``seed`` unless given), checked."""
    from sklearn.linear_model import LogisticRegression

    return _checked(LogisticRegression, {**CLASSIFIER_DEFAULTS, "random_state": seed, **(values or {})},
                    "logistic regression")


def fit_tfidf_lr(train_texts: list[str], train_labels: list[str], test_texts: list[str], test_labels: list[str],
                 *, vectorizer: dict[str, Any] | None = None, classifier: dict[str, Any] | None = None,
                 seed: int = 0) -> BaselineResult:
    """Fit on the training texts, score on the test texts (see the module docstring)."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    if len(set(train_labels)) < 2:
        raise WorkbenchError("the training texts have one label; a classifier needs at least two")
    start = time.perf_counter()
    vec = TfidfVectorizer(**vectorizer_settings(vectorizer))
    features = vec.fit_transform(train_texts)
    clf = LogisticRegression(**classifier_settings(classifier, seed))
    clf.fit(features, train_labels)
    predictions = [str(p) for p in clf.predict(vec.transform(test_texts))]
    wall = time.perf_counter() - start
    return BaselineResult(accuracy=accuracy(predictions, test_labels),
                          majority=majority_share(train_labels, test_labels),
                          trainable_parameters=int(clf.coef_.size + clf.intercept_.size),
                          train_size=len(train_texts), test_size=len(test_texts),
                          labels=[str(c) for c in clf.classes_], predictions=predictions, wall_s=wall,
                          feature_count=int(features.shape[1]))
