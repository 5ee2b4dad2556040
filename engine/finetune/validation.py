"""The task's metrics on the whole validation set, each example's prediction, and a confusion matrix.

Metric names (the run store's and ``summary.json``'s): sentence classification ``accuracy``, ``f1``
(macro) and ``mcc``; token classification entity-level ``f1``, ``precision`` and ``recall``; QA
``exact_match`` and ``f1`` (plus, on a SQuAD 2.0 set with answerable and unanswerable questions,
``HasAns_exact``, ``HasAns_f1``, ``NoAns_exact``, ``NoAns_f1``); sequence-to-sequence ``rouge1``,
``rouge2`` and ``rougeL``. They are computed over all examples at once (F1 and MCC do not average over
batches), from ``lm_workbench.engine.maths.metrics``. ``rows_scored`` is how many examples were scored; QA's
``squad`` is the official SQuAD 2.0 script's whole result (``exact``, ``f1``, ``total``, the split).
A metric with nothing to divide by (MCC over one gold class, entity precision with no entity predicted, any mean
over no example) is None and ``notes`` says why (``lm_workbench.engine.maths.undefined``), never nan or 0.

QA with ``no_answer`` (the run's data has an unanswerable question) predicts "" where the null score
wins (``inference.prefers_no_answer``); without it every question gets a span, as in SQuAD 1.1.

Each row: ``index, text, gold, predicted, correct, confidence`` plus the task's own keys
(``text_pair``, ``probabilities``; ``words``; ``context``, ``answers``; nothing more for seq2seq).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from lm_workbench.engine.finetune import inference
from lm_workbench.engine.maths import metrics


@dataclass
class ValidationReport:
    metrics: dict[str, float | None]  # None: undefined, said in ``notes``
    rows: list[dict[str, Any]] = field(default_factory=list)
    confusion: dict[str, Any] | None = None  # {"labels": [...], "matrix": [[gold x predicted]]}
    rows_scored: int = 0  # validation examples scored
    squad: dict[str, float | None] | None = None  # QA: ``metrics.squad_v2_scores`` (exact, f1, total, the split)
    notes: list[str] = field(default_factory=list)  # "<metric> not defined: <why>" for each None metric


def confusion_matrix(gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str]) -> dict[str, Any]:
    index = {label: i for i, label in enumerate(labels)}
    matrix = [[0] * len(labels) for _ in labels]
    for g, p in zip(gold, predicted):
        if g in index and p in index:
            matrix[index[g]][index[p]] += 1
    return {"labels": list(labels), "matrix": matrix}


def validate_task(task: str, model: Any, tokenizer: Any, data: Sequence[Any], labels: Sequence[str],
                  max_length: int, batch_size: int = 32, no_answer: bool | None = None) -> ValidationReport:
    """Predict every example of ``data`` (the reader's examples) and score the predictions. ``no_answer``
    (QA): whether "no answer" may be predicted; None decides from ``data`` (any unanswerable question)."""
    if task == "seq-cls":
        report = _classification(model, tokenizer, data, labels, max_length, batch_size)
    elif task == "token-cls":
        report = _tagging(model, tokenizer, data, labels, max_length, batch_size)
    elif task == "qa":
        if no_answer is None:
            no_answer = any(getattr(e, "unanswerable", False) for e in data)
        report = _questions(model, tokenizer, data, max_length, batch_size, no_answer)
    else:
        report = _generation(model, tokenizer, data, max_length, batch_size)
    report.rows_scored = len(data)
    return report


def _classification(model, tokenizer, data, labels, max_length, batch_size) -> ValidationReport:
    found = inference.classify(model, tokenizer, [(e.text, e.text_pair) for e in data], labels, max_length,
                               batch_size)
    gold, predicted = [e.label for e in data], [f["label"] for f in found]
    notes: list[str] = []
    scores = {"accuracy": metrics.accuracy(gold, predicted, notes),
              "f1": metrics.macro_f1(gold, predicted, notes, name="f1"),
              "mcc": metrics.matthews_corrcoef(gold, predicted, notes)}
    rows = [{"index": i, "text": e.text, "gold": e.label, "predicted": f["label"], "correct": e.label == f["label"],
             "confidence": f["confidence"], "text_pair": e.text_pair, "probabilities": f["probabilities"]}
            for i, (e, f) in enumerate(zip(data, found))]
    return ValidationReport(scores, rows, confusion_matrix(gold, predicted, labels), notes=notes)


def _tagging(model, tokenizer, data, labels, max_length, batch_size) -> ValidationReport:
    found = inference.tag(model, tokenizer, [s.words for s in data], labels, max_length, batch_size)
    gold, predicted = [list(s.tags) for s in data], [f["tags"] for f in found]
    notes: list[str] = []
    scores = metrics.entity_scores(gold, predicted, notes)
    rows = [{"index": i, "text": " ".join(s.words), "gold": list(s.tags), "predicted": f["tags"],
             "correct": list(s.tags) == f["tags"], "confidence": f["confidence"], "words": list(s.words)}
            for i, (s, f) in enumerate(zip(data, found))]
    flat_gold = [t for tags in gold for t in tags]
    flat_predicted = [t for tags in predicted for t in tags]
    return ValidationReport({"f1": scores["f1"], "precision": scores["precision"], "recall": scores["recall"]},
                            rows, confusion_matrix(flat_gold, flat_predicted, labels), notes=notes)


def _questions(model, tokenizer, data, max_length, batch_size, no_answer: bool) -> ValidationReport:
    found = inference.answer(model, tokenizer, [(e.question, e.context) for e in data], max_length, batch_size,
                             null_threshold=inference.NULL_THRESHOLD if no_answer else None)
    notes: list[str] = []
    squad = metrics.squad_v2_scores([f["answer"] for f in found], [list(e.answers) for e in data], notes)
    scores = {"exact_match": squad["exact"], "f1": squad["f1"]}
    scores |= {k: squad[k] for k in ("HasAns_exact", "HasAns_f1", "NoAns_exact", "NoAns_f1") if k in squad}
    rows = [{"index": i, "text": e.question, "gold": e.answers[0] if e.answers else "", "predicted": f["answer"],
             "correct": metrics.exact_match(f["answer"], metrics.squad_golds(e.answers)) == 1.0,
             "confidence": f["confidence"], "context": e.context, "answers": list(e.answers)}
            for i, (e, f) in enumerate(zip(data, found))]
    return ValidationReport(scores, rows, squad=squad, notes=notes)


def _generation(model, tokenizer, data, max_length, batch_size) -> ValidationReport:
    found = inference.generate(model, tokenizer, [e.source for e in data], max_length, batch_size)
    predicted = [f["text"] for f in found]
    notes: list[str] = []
    scores = metrics.rouge_scores(predicted, [e.target for e in data], notes)
    rows = [{"index": i, "text": e.source, "gold": e.target, "predicted": f["text"],
             "correct": metrics.rouge_tokens(f["text"]) == metrics.rouge_tokens(e.target),
             "confidence": f["confidence"]}
            for i, (e, f) in enumerate(zip(data, found))]
    return ValidationReport(scores, rows, notes=notes)

