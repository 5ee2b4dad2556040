"""Scores of predictions against gold answers: fine-tuning's validation metrics for its four tasks, and the
classification ones prompting's evaluation reports. Written here (no sklearn / seqeval / rouge_score at run
time; the tests check each against those libraries). All values are fractions in [0, 1] (MCC in [-1, 1]).

A score whose formula has nothing to divide by is ``None``, never ``nan`` and never a made-up 0 or 1
(``lm_workbench.engine.maths.undefined``): an accuracy, F1 or SQuAD/ROUGE mean over no examples; MCC when the gold
labels or the predictions are all one class (a correlation over constant values; sklearn says 0 there); entity
precision when nothing was predicted, recall when there is no gold entity, F1 when there is neither. Each function
that can say so takes ``notes`` (a list) and appends ``"<metric> not defined: <why>"``.
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from typing import Hashable, Sequence

from lm_workbench.engine.maths.undefined import add as _undefined

NO_EXAMPLES = "no examples to score"

# ---------------------------------------------------------------- classification


def accuracy(y_true: Sequence[Hashable], y_pred: Sequence[Hashable], notes: list[str] | None = None
             ) -> float | None:
    """The share of predictions equal to the gold label; None (noted) over no examples."""
    _same_length(y_true, y_pred)
    if not y_true:
        _undefined(notes, "accuracy", NO_EXAMPLES)
        return None
    return sum(t == p for t, p in zip(y_true, y_pred)) / len(y_true)


def macro_f1(y_true: Sequence[Hashable], y_pred: Sequence[Hashable], notes: list[str] | None = None,
             name: str = "macro_f1") -> float | None:
    """Unweighted mean of per-class F1 over every class seen in either list (0 for a class never right); None
    (noted as ``name``) over no examples."""
    _same_length(y_true, y_pred)
    classes = set(y_true) | set(y_pred)
    if not classes:
        _undefined(notes, name, NO_EXAMPLES)
        return None
    scores = []
    for c in classes:
        tp = sum(t == c and p == c for t, p in zip(y_true, y_pred))
        predicted = sum(p == c for p in y_pred)
        actual = sum(t == c for t in y_true)
        scores.append(2 * tp / (predicted + actual) if predicted + actual else 0.0)
    return sum(scores) / len(scores)


def matthews_corrcoef(y_true: Sequence[Hashable], y_pred: Sequence[Hashable], notes: list[str] | None = None
                      ) -> float | None:
    """Matthews correlation; for K classes Gorodkin's R_K from the confusion matrix. None (noted) when either side
    is all one class: a correlation over constant values is undefined (sklearn returns 0 there)."""
    _same_length(y_true, y_pred)
    n = len(y_true)
    if not n:
        _undefined(notes, "mcc", NO_EXAMPLES)
        return None
    correct = sum(t == p for t, p in zip(y_true, y_pred))
    true_counts, pred_counts = Counter(y_true), Counter(y_pred)
    classes = set(true_counts) | set(pred_counts)
    covariance = correct * n - sum(true_counts[c] * pred_counts[c] for c in classes)
    spread_pred = n * n - sum(v * v for v in pred_counts.values())
    spread_true = n * n - sum(v * v for v in true_counts.values())
    if spread_true == 0:
        _undefined(notes, "mcc", f"every gold label is {next(iter(true_counts))!r}; a correlation needs two classes")
        return None
    if spread_pred == 0:
        _undefined(notes, "mcc", f"every prediction is {next(iter(pred_counts))!r}; a correlation needs two classes")
        return None
    return covariance / math.sqrt(spread_pred * spread_true)


def classification_metrics(y_true: Sequence[Hashable], y_pred: Sequence[Hashable],
                           notes: list[str] | None = None) -> dict[str, float | None]:
    """``accuracy``, ``macro_f1`` and ``mcc`` (each None when undefined, with its note in ``notes``)."""
    return {"accuracy": accuracy(y_true, y_pred, notes), "macro_f1": macro_f1(y_true, y_pred, notes),
            "mcc": matthews_corrcoef(y_true, y_pred, notes)}


# ---------------------------------------------------------------- BIO entities


def bio_entities(tags: Sequence[str]) -> list[tuple[str, int, int]]:
    """Entities as (type, first index, last index). ``B-X`` opens one; ``I-X`` continues an open X and
    opens a new X after ``O`` or after another type (the conlleval convention)."""
    entities, open_type, open_start = [], None, 0
    for i, tag in enumerate(list(tags) + ["O"]):
        prefix, kind = (tag[:1], tag[2:]) if tag != "O" else ("O", None)
        continues = prefix == "I" and kind == open_type
        if open_type is not None and not continues:
            entities.append((open_type, open_start, i - 1))
            open_type = None
        if prefix in ("B", "I") and not continues:
            open_type, open_start = kind, i
    return entities


def entity_scores(true_tags: Sequence[Sequence[str]], pred_tags: Sequence[Sequence[str]],
                  notes: list[str] | None = None) -> dict[str, float | None]:
    """Micro-averaged entity precision, recall and F1 over sentences: an entity counts only when its type
    and both ends match exactly. Precision is None (noted) when nothing was predicted, recall when no gold entity
    exists, F1 (2·right / (gold + predicted)) when neither exists."""
    _same_length(true_tags, pred_tags)
    gold, guessed = set(), set()
    for s, (t, p) in enumerate(zip(true_tags, pred_tags)):
        _same_length(t, p)
        gold.update((s,) + e for e in bio_entities(t))
        guessed.update((s,) + e for e in bio_entities(p))
    hits = len(gold & guessed)
    precision = hits / len(guessed) if guessed else None
    recall = hits / len(gold) if gold else None
    f1 = 2 * hits / (len(gold) + len(guessed)) if gold or guessed else None
    if precision is None:
        _undefined(notes, "precision", "the model predicted no entity")
    if recall is None:
        _undefined(notes, "recall", "the gold tags hold no entity")
    if f1 is None:
        _undefined(notes, "f1", "neither the gold tags nor the predictions hold an entity")
    return {"precision": precision, "recall": recall, "f1": f1}


# ---------------------------------------------------------------- SQuAD

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = set(string.punctuation)


def normalize_answer(text: str) -> str:
    """Lower case, punctuation removed, articles (a, an, the) removed, whitespace collapsed."""
    text = "".join(ch for ch in text.lower() if ch not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def exact_match(prediction: str, golds: Sequence[str]) -> float:
    """1.0 when ``prediction`` equals one of ``golds`` after ``normalize_answer``; no golds (an
    unanswerable question) count as the one gold answer ""."""
    return max(float(normalize_answer(prediction) == normalize_answer(g)) for g in (golds or [""]))


def token_f1(prediction: str, golds: Sequence[str]) -> float:
    """The best token F1 over ``golds`` (none: ""); F1 of two empty answers is 1, of empty and not empty 0."""
    return max(_token_f1(normalize_answer(prediction).split(), normalize_answer(g).split())
               for g in (golds or [""]))


def _token_f1(predicted: list[str], gold: list[str]) -> float:
    if not predicted or not gold:
        return float(predicted == gold)
    common = sum((Counter(predicted) & Counter(gold)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(predicted), common / len(gold)
    return 2 * precision * recall / (precision + recall)


def squad_metrics(predictions: Sequence[str], golds: Sequence[Sequence[str]],
                  notes: list[str] | None = None) -> dict[str, float | None]:
    """Mean exact match and token F1 (each the max over a question's gold answers; none: ""); None over no
    questions."""
    _same_length(predictions, golds)
    if not predictions:
        _undefined(notes, "exact_match", NO_EXAMPLES)
        _undefined(notes, "f1", NO_EXAMPLES)
        return {"exact_match": None, "f1": None}
    n = len(predictions)
    return {"exact_match": sum(exact_match(p, g) for p, g in zip(predictions, golds)) / n,
            "f1": sum(token_f1(p, g) for p, g in zip(predictions, golds)) / n}


def squad_golds(answers: Sequence[str]) -> list[str]:
    """A question's gold answers as the official SQuAD 2.0 script scores them: those that normalize to
    something, or [""] when none does (an unanswerable question)."""
    return [a for a in answers if normalize_answer(a)] or [""]


def squad_v2_scores(predictions: Sequence[str], answers: Sequence[Sequence[str]],
                    notes: list[str] | None = None) -> dict[str, float | None]:
    """SQuAD 2.0 scoring as its official script (``evaluate-v2.0.py``) does it, as fractions in [0, 1]
    (the script's numbers / 100): ``answers`` are each question's gold answers, empty for an unanswerable
    one; EM and F1 per question are the best over ``squad_golds`` (a mean over no question is None, noted).
    Returns ``exact``, ``f1``, ``total`` and, when the set has both kinds of question, ``HasAns_exact``,
    ``HasAns_f1``, ``HasAns_total``,
    ``NoAns_exact``, ``NoAns_f1``, ``NoAns_total`` (has an answer: the file gave one)."""
    _same_length(answers, predictions)
    exact, f1 = [], []
    for prediction, gold in zip(predictions, answers):
        golds = squad_golds(gold)
        exact.append(exact_match(prediction, golds))
        f1.append(token_f1(prediction, golds))

    def block(prefix: str, chosen: list[int]) -> dict[str, float | None]:
        n = len(chosen)
        return {f"{prefix}exact": sum(exact[i] for i in chosen) / n if n else None,
                f"{prefix}f1": sum(f1[i] for i in chosen) / n if n else None, f"{prefix}total": n}

    scores = block("", list(range(len(exact))))
    if not exact:
        _undefined(notes, "exact_match", NO_EXAMPLES)
        _undefined(notes, "f1", NO_EXAMPLES)
    has = [i for i, gold in enumerate(answers) if gold]
    no = [i for i, gold in enumerate(answers) if not gold]
    if has and no:
        scores |= block("HasAns_", has) | block("NoAns_", no)
    return scores


# ---------------------------------------------------------------- ROUGE


def rouge_tokens(text: str) -> list[str]:
    """Lower case, every run of characters other than a-z and 0-9 is a separator; no stemming."""
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).split()


def _f_measure(overlap: int, predicted: int, target: int) -> float:
    if overlap == 0:
        return 0.0
    precision, recall = overlap / predicted, overlap / target
    return 2 * precision * recall / (precision + recall)


def rouge_n(prediction: str, target: str, n: int) -> float:
    def grams(tokens):
        return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))
    p, t = grams(rouge_tokens(prediction)), grams(rouge_tokens(target))
    return _f_measure(sum((p & t).values()), sum(p.values()), sum(t.values()))


def rouge_l(prediction: str, target: str) -> float:
    p, t = rouge_tokens(prediction), rouge_tokens(target)
    row = [0] * (len(t) + 1)
    for a in p:  # longest common subsequence, one row at a time
        previous_diagonal = 0
        for j, b in enumerate(t, start=1):
            above = row[j]
            row[j] = previous_diagonal + 1 if a == b else max(row[j], row[j - 1])
            previous_diagonal = above
    return _f_measure(row[-1], len(p), len(t))


def rouge_scores(predictions: Sequence[str], targets: Sequence[str],
                 notes: list[str] | None = None) -> dict[str, float | None]:
    """Mean ROUGE-1, ROUGE-2 and ROUGE-L F-measures over the pairs (None over no pairs)."""
    _same_length(predictions, targets)
    if not predictions:
        for key in ("rouge1", "rouge2", "rougeL"):
            _undefined(notes, key, NO_EXAMPLES)
        return {"rouge1": None, "rouge2": None, "rougeL": None}
    n = len(predictions)
    pairs = list(zip(predictions, targets))
    return {"rouge1": sum(rouge_n(p, t, 1) for p, t in pairs) / n,
            "rouge2": sum(rouge_n(p, t, 2) for p, t in pairs) / n,
            "rougeL": sum(rouge_l(p, t) for p, t in pairs) / n}


def _same_length(a: Sequence, b: Sequence) -> None:
    if len(a) != len(b):
        raise ValueError(f"{len(a)} references but {len(b)} predictions")
