"""Evaluating prompts over a labelled file: accuracy, macro-F1 and the confusion matrix, raw and calibrated.

``evaluate_prompts`` is a job generator (``Progress`` after each batch of examples, a
``Partial(PromptEvaluation)`` after each prompt, cancel between batches) that scores several templates and
verbalizers over the same examples and the same demonstrations, so their accuracies sit side by side:
prompt sensitivity is a lesson in itself. With ``k_shot`` > 0 and random or balanced selection, one set
of demonstrations is chosen with the seed and left out of the examples evaluated; with similar selection
each example gets its own, chosen from the other examples. Calibration (Zhao et al. 2021) uses the same prompt and demonstrations.
The label rule (``lm_workbench.engine.data.labels``) holds: a verbalizer's label matches the data's by value
(``1`` is ``1.0``, said in ``notes``), and fixed demonstrations must leave every label something to evaluate
(``demonstration_labels``; ``keep_unseen_labels`` goes on with a note).
``accuracy_vs_k`` repeats the evaluation for several k and seeds: a mean and standard deviation per k.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Generator, Sequence

import numpy as np

from lm_workbench.engine.data.tasks import ClassificationData
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.maths.metrics import accuracy, macro_f1
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, Partial, Progress, relay
from lm_workbench.engine.prompting.calibration import calibrate as calibrated_probs, content_free_probs
from lm_workbench.engine.prompting.fewshot import SEPARATOR, Demonstration, choose_demonstrations, check_choice, cosine_to
from lm_workbench.engine.prompting.template import Template
from lm_workbench.engine.prompting.verbalizer import Verbalizer

Embed = Callable[[list[str]], np.ndarray]  # texts -> sentence vectors [n, H]


@dataclass(frozen=True)
class PromptChoice:
    """One template with one verbalizer, as a row of the side-by-side table."""

    template: Template
    verbalizer: Verbalizer
    name: str = ""


@dataclass(frozen=True)
class EvaluationSettings:
    k_shot: int = 0
    seed: int = 0
    selection: str = "random"  # random | balanced | similar
    order: str = "as-chosen"
    calibrate: bool = False
    multi_token: str = "left-to-right"
    length_normalise: bool = False
    separator: str = SEPARATOR
    limit: int | None = None  # evaluate only the first N examples (after demonstrations are set aside)
    batch_size: int = 8  # examples per batched forward pass
    keep_unseen_labels: bool = False  # a label found only among the demonstrations: go on (noted), else refused


def confusion_matrix(gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str]) -> list[list[int]]:
    """Counts [gold label][predicted label], in the order of ``labels``."""
    index = {label: i for i, label in enumerate(labels)}
    matrix = [[0] * len(labels) for _ in labels]
    for g, p in zip(gold, predicted):
        matrix[index[g]][index[p]] += 1
    return matrix


@dataclass
class Scores:
    """Accuracy, macro-F1 and the confusion matrix of one set of predictions."""

    predicted: list[str]
    accuracy: float
    macro_f1: float
    confusion: list[list[int]]

    @classmethod
    def of(cls, gold: Sequence[str], predicted: list[str], labels: Sequence[str]) -> "Scores":
        return cls(predicted, accuracy(gold, predicted), macro_f1(gold, predicted),
                   confusion_matrix(gold, predicted, labels))

    def to_dict(self) -> dict[str, Any]:
        return {"accuracy": self.accuracy, "macro_f1": self.macro_f1, "confusion": self.confusion,
                "predicted": self.predicted}


@dataclass
class PromptEvaluation:
    """One prompt's results. ``probs``: label probabilities per example (labels in ``labels`` order)."""

    name: str
    template: str
    mode: str
    verbalizer: str
    labels: list[str]
    gold: list[str]
    probs: list[list[float]]
    raw: Scores
    calibrated: Scores | None = None
    calibrated_probs: list[list[float]] | None = None
    p_cf: list[float] | None = None  # the content-free probabilities (fixed demonstrations only)
    dropped: dict[int, list[int]] = field(default_factory=dict)  # example -> demonstrations dropped

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "template": self.template, "mode": self.mode, "verbalizer": self.verbalizer,
                "labels": self.labels, "raw": self.raw.to_dict(),
                "calibrated": self.calibrated.to_dict() if self.calibrated else None, "p_cf": self.p_cf,
                "dropped_demonstrations": {str(k): v for k, v in self.dropped.items()}}


@dataclass
class EvaluationResult:
    prompts: list[PromptEvaluation]
    examples: list[int]  # indices into the data's examples that were evaluated
    demonstrations: list[int]  # fixed demonstrations (indices into the data), [] for none or per-example ones
    settings: EvaluationSettings
    notes: list[str] = field(default_factory=list)  # the label rule's: labels respelled, demonstrations' labels

    def to_dict(self) -> dict[str, Any]:
        return {"examples": len(self.examples), "demonstrations": self.demonstrations,
                "k_shot": self.settings.k_shot, "seed": self.settings.seed, "selection": self.settings.selection,
                "calibrate": self.settings.calibrate, "prompts": [p.to_dict() for p in self.prompts],
                "notes": list(self.notes)}


def demonstrations_of(data: ClassificationData) -> list[Demonstration]:
    return [Demonstration(e.text, e.label, e.text_pair) for e in data.examples]


def check_prompts_for(data: ClassificationData, prompts: Sequence[PromptChoice], where: str = "the data") -> None:
    """Every data label covered by every verbalizer; pair templates with pair data and single with single."""
    if not prompts:
        raise WorkbenchError("no prompt to evaluate: give a template and a verbalizer")
    for choice in prompts:
        choice.verbalizer.require_labels(data.labels, where)
        if choice.template.is_pair and not data.is_pair:
            raise WorkbenchError(f"the template has [x2] but {where} has single texts (no sentence2 column)")
        if data.is_pair and not choice.template.is_pair:
            raise WorkbenchError(f"{where} has pairs of texts: write [x2] in the template for the second one")


def evaluate_prompts(loaded: Any, data: ClassificationData, prompts: Sequence[PromptChoice],
                     settings: EvaluationSettings = EvaluationSettings(), *, embed: Embed | None = None,
                     where: str = "the data", cancel: CancelToken = NEVER_CANCELLED
                     ) -> Generator[Progress | Partial, None, EvaluationResult]:
    """Score every example under every prompt (see the module docstring)."""
    from lm_workbench.engine.prompting.scoring import PromptInput, check_model_for, check_multi_token, score_batch

    check_prompts_for(data, prompts, where)
    check_choice(settings.k_shot, settings.selection, settings.order)
    check_multi_token(settings.multi_token)
    for choice in prompts:
        check_model_for(loaded, choice.template)
    prompts, notes = _respelled(prompts, data.labels)
    pool = demonstrations_of(data)
    labels = prompts[0].verbalizer.labels
    per_example = settings.k_shot > 0 and settings.selection == "similar"
    fixed: list[int] = []
    if settings.k_shot > 0 and not per_example:
        fixed = choose_demonstrations(pool, settings.k_shot, selection=settings.selection, seed=settings.seed,
                                      labels=labels, order=settings.order)
        notes += demonstration_labels(pool, fixed, settings.keep_unseen_labels)
    examples = [i for i in range(len(pool)) if i not in set(fixed)][:settings.limit]
    if not examples:
        raise WorkbenchError(f"no examples left to evaluate after setting {len(fixed)} demonstrations aside")
    vectors = _vectors(pool, embed) if per_example else None
    total = len(examples) * len(prompts)
    # batches of similar length waste little on padding; results go back to the data's order
    by_length = sorted(examples, key=lambda i: (len(pool[i].x) + len(pool[i].x2 or ""), i))
    scoring = dict(multi_token=settings.multi_token, length_normalise=settings.length_normalise,
                   separator=settings.separator)
    results = []
    done = 0
    for choice in prompts:
        labels = choice.verbalizer.labels
        by_example: dict[int, list[float]] = {}
        cal_by_example: dict[int, list[float]] = {}
        dropped: dict[int, list[int]] = {}
        p_cf = None
        if settings.calibrate and not per_example:
            p_cf = content_free_probs(loaded, choice.template, choice.verbalizer, [pool[i] for i in fixed],
                                      **scoring)
        for batch in _batches(by_length, max(1, settings.batch_size)):
            cancel.check()
            demo_ids = {i: fixed if not per_example else choose_demonstrations(
                pool, settings.k_shot, selection="similar", labels=labels, exclude=[i],
                similarities=cosine_to(vectors[i], vectors), order=settings.order, seed=settings.seed)
                for i in batch}
            inputs = [PromptInput(pool[i].x, pool[i].x2, tuple(pool[j] for j in demo_ids[i])) for i in batch]
            try:
                scored = score_batch(loaded, choice.template, choice.verbalizer, inputs, top_k=1, **scoring)
            except WorkbenchError as exc:
                raise WorkbenchError(f"{where}, example {_culprit(loaded, choice, inputs, batch, scoring)}: "
                                     f"{exc}") from None
            for i, item, result in zip(batch, inputs, scored):
                by_example[i] = result.label_probs
                if result.dropped_demonstrations:
                    dropped[i] = [demo_ids[i][j] for j in result.dropped_demonstrations]
                if settings.calibrate:
                    example_cf = p_cf if p_cf is not None else content_free_probs(
                        loaded, choice.template, choice.verbalizer, item.demonstrations, **scoring)
                    cal_by_example[i] = calibrated_probs(result.label_probs, example_cf).tolist()
            done += len(batch)
            say = done % 50 < len(batch) or done % len(examples) == 0  # a line now and then for the CLI
            yield Progress(done, total, f"{choice.name or 'prompt'}: {done}/{total} scored" if say else "")
        gold = [pool[i].label for i in examples]
        probs = [by_example[i] for i in examples]
        cal = [cal_by_example[i] for i in examples] if settings.calibrate else []
        evaluation = PromptEvaluation(
            choice.name, choice.template.text, choice.template.mode, choice.verbalizer.to_text(), labels, gold,
            probs, Scores.of(gold, _argmax(probs, labels), labels), dropped=dropped,
            p_cf=None if p_cf is None else p_cf.tolist())
        if settings.calibrate:
            evaluation.calibrated = Scores.of(gold, _argmax(cal, labels), labels)
            evaluation.calibrated_probs = cal
        results.append(evaluation)
        yield Partial(evaluation)
    return EvaluationResult(results, examples, fixed, settings, notes)


def _respelled(prompts: Sequence[PromptChoice], labels: Sequence[str]) -> tuple[list[PromptChoice], list[str]]:
    """Each prompt's verbalizer with its labels written as the data writes them (the label rule: ``1`` is
    ``1.0``), and the notes saying which were respelled."""
    from dataclasses import replace

    out, notes = [], []
    for choice in prompts:
        verbalizer, said = choice.verbalizer.respelled(list(labels))
        notes += [line for line in said if line not in notes]
        out.append(replace(choice, verbalizer=verbalizer))
    return out, notes


def demonstration_labels(pool: Sequence[Demonstration], fixed: Sequence[int], keep: bool = False) -> list[str]:
    """The label rule for fixed demonstrations drawn from the data (the few-shot pool): a label whose every
    example became a demonstration is never evaluated, so it is refused in one line, or with ``keep``
    (``--keep-unseen-labels``) said in a note; a label the demonstrations do not show is said in a note (the
    verbalizer still offers it, so it is scored)."""
    from lm_workbench.engine.data.labels import KEEP_FLAG

    chosen = set(fixed)
    shown = Counter(pool[i].label for i in fixed)
    evaluated = Counter(pool[i].label for i in range(len(pool)) if i not in chosen)
    only_shown = sorted(label for label in shown if label not in evaluated)
    notes = []
    if only_shown:
        named = ", ".join(f"{label!r} ({shown[label]})" for label in only_shown)
        if not keep:
            raise WorkbenchError(f"label(s) {named} appear only among the demonstrations: every example of them was "
                                 f"drawn as one, so none is evaluated and the scores would leave them out; choose "
                                 f"another seed or a smaller k, or go on with {KEEP_FLAG}")
        notes.append(f"label(s) {named} appear only among the demonstrations ({KEEP_FLAG}): none of their examples "
                     "is evaluated")
    unshown = sorted(label for label in evaluated if label not in shown)
    if unshown:
        notes.append(f"label(s) {', '.join(map(repr, unshown))} have no demonstration among the {len(fixed)} shown "
                     "(the verbalizer still offers them)")
    return notes


def _batches(items: list[int], size: int) -> list[list[int]]:
    return [items[i:i + size] for i in range(0, len(items), size)]


def _culprit(loaded: Any, choice: PromptChoice, inputs: list[Any], batch: list[int], scoring: dict) -> int:
    """The (1-based) number of the first example in a failed batch that fails on its own."""
    from lm_workbench.engine.prompting.scoring import score_batch

    for i, item in zip(batch, inputs):
        try:
            score_batch(loaded, choice.template, choice.verbalizer, [item], top_k=1, **scoring)
        except WorkbenchError:
            return i + 1
    return batch[0] + 1


def _argmax(probs: list[list[float]], labels: list[str]) -> list[str]:
    return [labels[int(np.argmax(row))] for row in probs]


def _vectors(pool: list[Demonstration], embed: Embed | None) -> np.ndarray:
    if embed is None:
        raise WorkbenchError("similar demonstrations need sentence embeddings: give an embedding model")
    return np.asarray(embed([d.x if d.x2 is None else f"{d.x} {d.x2}" for d in pool]), dtype=np.float64)


@dataclass(frozen=True)
class KPoint:
    """Accuracy with k demonstrations over several seeds."""

    k: int
    accuracies: tuple[float, ...]

    @property
    def mean(self) -> float:
        return float(np.mean(self.accuracies))

    @property
    def std(self) -> float:
        return float(np.std(self.accuracies))

    def to_dict(self) -> dict[str, Any]:
        return {"k": self.k, "mean": self.mean, "std": self.std, "accuracies": list(self.accuracies)}


def accuracy_vs_k(loaded: Any, data: ClassificationData, prompt: PromptChoice, ks: Sequence[int],
                  seeds: Sequence[int] = (0, 1, 2), settings: EvaluationSettings = EvaluationSettings(), *,
                  embed: Embed | None = None, calibrated: bool = False, cancel: CancelToken = NEVER_CANCELLED
                  ) -> Generator[Progress | Partial, None, list[KPoint]]:
    """Accuracy against k (a ``Partial(KPoint)`` per k): the band over seeds shows how much the choice of
    demonstrations matters. ``calibrated`` reads the calibrated accuracy (settings.calibrate is then set)."""
    from dataclasses import replace

    points = []
    runs = len(ks) * len(seeds)
    for n, k in enumerate(ks):
        accuracies = []
        for s, seed in enumerate(seeds if k > 0 else seeds[:1]):  # k = 0 has nothing to draw
            run = replace(settings, k_shot=int(k), seed=int(seed), calibrate=calibrated or settings.calibrate)
            done, label = n * len(seeds) + s, f"k = {k}, seed {seed}"
            result = yield from relay(
                evaluate_prompts(loaded, data, [prompt], run, embed=embed, cancel=cancel),
                lambda report: Progress(done, runs, f"{label}: {report.message}") if isinstance(report, Progress)
                else None)
            evaluation = result.prompts[0]
            scores = evaluation.calibrated if calibrated and evaluation.calibrated else evaluation.raw
            accuracies.append(scores.accuracy)
        point = KPoint(int(k), tuple(accuracies))
        points.append(point)
        yield Partial(point)
    return points
