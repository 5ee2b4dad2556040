"""The label rule: which labels are one class, how a held-out split keeps every class, and what a split may hold.

Every path that trains or scores labelled data follows it (fine-tuning's sequence and token classification, the
automatic hold-out, prompt evaluation and its demonstrations, probing's sentence tasks, the window's forms):

- **Spelling.** Two label cells are one class when they are the same text once surrounding spaces are removed, or
  when both are numbers of the same value (``1``, ``1.0``, `` 1``, ``+1``, ``1e0``). Case is a real difference
  (``Pos`` and ``pos`` are two classes). The class is named by the spelling seen first (the training file first);
  a note names the spellings that were merged. ``Spellings`` does this across any number of files.
- **Hold-out.** ``stratified_holdout`` holds out a seeded share of each class, in proportion to its size, and never
  a class's last example: a class too small to split stays in training, said in a note. ``covering_holdout`` does
  the same for examples that carry several labels (token classification: a sentence's tags): an example is held
  out only when every label it carries keeps an example in training.
- **Across splits.** A label of a held-out split (validation, test, the demonstrations of a prompt) that training
  never shows is named: ``unseen_labels`` refuses it in one line (``WorkbenchError``) or, with ``keep`` (the
  ``--keep-unseen-labels`` flag), leaves its examples out of that split and counts them in a note. A training
  label that the held-out split lacks is said in a note (nothing measures it). The one-class refusal is made on
  what is trained (``require_classes``), not on a file.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Hashable, Iterable, Sequence

from lm_workbench.engine.errors import WorkbenchError

KEEP_FLAG = "--keep-unseen-labels"


def label_key(label: str) -> str:
    """What makes two label cells one class: the text without surrounding spaces, or for a number its value
    (``"1"``, ``" 1"``, ``"1.0"``, ``"+1"``, ``"1e0"`` all give ``"1"``). Case is kept."""
    text = str(label).strip()
    number = _number(text)
    return text if number is None else number


def _number(text: str) -> str | None:
    """The canonical text of a finite decimal number, or None for anything else (words, nan, inf, ``1_0``)."""
    if not text or "_" in text or not any(ch.isdigit() for ch in text):
        return None
    try:
        value = Decimal(text)
    except (InvalidOperation, ValueError):
        return None
    if not value.is_finite():
        return None
    if value == 0:
        return "0"  # -0 and 0.00 too
    value = value.normalize()  # 1.0 -> 1, 10 -> 1E+1
    return format(value, "f") if -30 <= value.adjusted() <= 30 else str(value)  # 1e999999 stays short


def _shown(labels: Iterable[str], limit: int = 5) -> str:
    """``'a', 'b' and 'c'`` (at most ``limit`` named, then how many more)."""
    names = [repr(str(x)) for x in labels]
    if len(names) > limit:
        names = names[:limit] + [f"{len(names) - limit} more"]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


class Spellings:
    """Label cells to class names by ``label_key``, remembering which spellings were merged (and where)."""

    def __init__(self) -> None:
        self._name: dict[str, str] = {}  # key -> the class's name (its first spelling, stripped)
        self._seen: dict[str, dict[str, str]] = {}  # key -> {spelling as written: where it was first seen}

    def name(self, label: str, where: str = "") -> str:
        """The class of the cell ``label`` (first seen in ``where``, e.g. a file name)."""
        key = label_key(label)
        name = self._name.setdefault(key, str(label).strip())
        self._seen.setdefault(key, {}).setdefault(str(label), where)
        return name

    def notes(self) -> list[str]:
        """One line per class written more than one way: ``labels '1' and '1.0' (dev.tsv) are one class, '1'``."""
        out = []
        for key, spellings in self._seen.items():
            if len(spellings) < 2:
                continue
            written = [f"{s!r}" + (f" ({where})" if where and len(set(spellings.values())) > 1 else "")
                       for s, where in spellings.items()]
            why = "the same number" if _number(str(key)) is not None else "the same text once spaces are removed"
            out.append(f"labels {', '.join(written[:-1])} and {written[-1]} are one class, {self._name[key]!r}: "
                       f"{why}")
        return out


# ---------------------------------------------------------------- hold-out


@dataclass
class HeldOut:
    """Indices of the examples kept for training and held out, each in the input's order, and the notes."""

    train: list[int]
    held: list[int]
    notes: list[str] = field(default_factory=list)
    alone: list[str] = field(default_factory=list)  # labels too rare to split, all kept in training

    def take(self, examples: Sequence) -> tuple[list, list]:
        return [examples[i] for i in self.train], [examples[i] for i in self.held]


def held_out_count(n: int, fraction: float) -> int:
    """How many of ``n`` examples a hold-out of ``fraction`` aims at: round(n · fraction), at least 1, at most
    n − 1."""
    if not 0.0 < fraction < 1.0:
        raise WorkbenchError(f"the held-out fraction must be between 0 and 1, not {fraction}")
    return min(n - 1, max(1, round(n * fraction)))


def class_quotas(counts: dict[str, int], target: int) -> dict[str, int]:
    """How many of each class to hold out so that ``target`` are held out in all, in proportion to the classes'
    sizes and never a class's last example: unit by unit, each goes to the class furthest below its share
    ``target · size / total`` (ties: the larger class, then the label sorted first) among those with one to spare;
    fewer than ``target`` when the classes have fewer to spare."""
    total = sum(counts.values())
    rank = {label: r for r, label in enumerate(sorted(counts))}
    held = {label: 0 for label in counts}
    spare = sum(max(0, c - 1) for c in counts.values())
    for _ in range(min(target, spare)):
        open_ = [label for label, c in counts.items() if held[label] < c - 1]
        # the deficit target·size/total − held, times total (integers: no rounding decides a tie)
        best = max(open_, key=lambda label: (target * counts[label] - held[label] * total, counts[label],
                                             -rank[label]))
        held[best] += 1
    return held


def stratified_holdout(labels: Sequence[str], fraction: float, seed: int = 0, *, what: str = "validation"
                       ) -> HeldOut:
    """Hold out ``held_out_count(len(labels), fraction)`` examples, each class in proportion to its size
    (``class_quotas``), drawn within the class by a seeded shuffle; a class with one example stays in training
    (a note says so). Refuses when no class has two examples (nothing could be held out)."""
    if len(labels) < 2:
        raise WorkbenchError(f"at least two examples are needed to hold some out for {what}")
    target = held_out_count(len(labels), fraction)
    by_class: dict[str, list[int]] = {}
    for i, label in enumerate(labels):
        by_class.setdefault(label, []).append(i)
    quotas = class_quotas({label: len(rows) for label, rows in by_class.items()}, target)
    if not any(quotas.values()):
        raise WorkbenchError(f"every label has a single example, so none can be held out for {what} without taking "
                             f"its class out of training; give a {what} file")
    rng = random.Random(seed)
    held: list[int] = []
    for label in sorted(by_class):
        rows = list(by_class[label])
        rng.shuffle(rows)
        held.extend(rows[:quotas[label]])
    notes = []
    alone = sorted(label for label, rows in by_class.items() if len(rows) == 1)
    if alone:
        notes.append(f"label {_shown(alone)} {'has' if len(alone) == 1 else 'have'} one example: kept in training, "
                     f"none held out for {what} (too few to split)")
    return _held_out(len(labels), held, notes, alone)


def covering_holdout(label_sets: Sequence[Iterable[str]], fraction: float, seed: int = 0, *,
                     what: str = "validation", ignore: Iterable[str] = ()) -> HeldOut:
    """Hold out ``held_out_count`` examples that each carry several labels (a sentence's tags): in a seeded order,
    an example is held out only if every label it carries (``ignore`` aside, e.g. ``O``) keeps another example in
    training; a label found in one example only stays in training (a note says so)."""
    sets = [set(s) - set(ignore) for s in label_sets]
    if len(sets) < 2:
        raise WorkbenchError(f"at least two examples are needed to hold some out for {what}")
    target = held_out_count(len(sets), fraction)
    left = Counter(label for s in sets for label in s)
    order = list(range(len(sets)))
    random.Random(seed).shuffle(order)
    held: list[int] = []
    for i in order:
        if len(held) == target:
            break
        if all(left[label] > 1 for label in sets[i]):
            held.append(i)
            left.subtract(sets[i])
    if not held:
        raise WorkbenchError(f"every example carries a label found nowhere else, so none can be held out for {what} "
                             f"without taking a label out of training; give a {what} file")
    notes = []
    alone = sorted(label for label, n in Counter(label for s in sets for label in s).items() if n == 1)
    if alone:
        notes.append(f"label {_shown(alone)} {'occurs' if len(alone) == 1 else 'occur'} in one example only: kept "
                     f"in training, not held out for {what} (too few to split)")
    return _held_out(len(sets), held, notes, alone)


def _held_out(n: int, held: list[int], notes: list[str], alone: list[str]) -> HeldOut:
    chosen = set(held)
    return HeldOut([i for i in range(n) if i not in chosen], sorted(chosen), notes, alone)


# ---------------------------------------------------------------- across splits


@dataclass
class SplitCheck:
    """The examples of a held-out split that stay (indices into it) and what was said about its labels."""

    kept: list[int]
    notes: list[str] = field(default_factory=list)


def unseen_labels(train_labels: Iterable[str], split_labels: Sequence[Iterable[str] | str], *, split: str,
                  keep: bool = False, trained_on: str = "training", ignore: Iterable[str] = (),
                  said: Iterable[str] = ()) -> SplitCheck:
    """Check the held-out split ``split`` (e.g. "validation", "the demonstrations") against the labels training
    shows. ``split_labels``: each example's label, or its set of labels (a sentence's tags). A label of the split
    that ``trained_on`` lacks is refused in one line, or with ``keep`` its examples are left out and counted; a
    training label that the split lacks is said (nothing in the split measures it). ``ignore``: labels that are
    not classes of their own here (``O``); ``said``: training labels a note already explains (not named again)."""
    trained = set(train_labels) - set(ignore)
    per_example = [{x} if isinstance(x, str) else set(x) for x in split_labels]
    per_example = [s - set(ignore) for s in per_example]
    counts = Counter(label for s in per_example for label in s)
    unseen = sorted(label for label in counts if label not in trained)
    notes: list[str] = []
    kept = list(range(len(per_example)))
    if unseen:
        examples = sum(1 for s in per_example if s & set(unseen))
        named = ", ".join(f"{label!r} ({counts[label]})" for label in unseen[:5]) + (
            f" and {len(unseen) - 5} more" if len(unseen) > 5 else "")
        if not keep:
            raise WorkbenchError(f"{split} has label(s) that {trained_on} never shows: {named}; a model cannot "
                                 f"learn them, so they would only count as errors. Add examples of them to "
                                 f"{trained_on}, or leave those {examples} example(s) out with {KEEP_FLAG}")
        kept = [i for i, s in enumerate(per_example) if not s & set(unseen)]
        notes.append(f"{examples} {split} example(s) left out ({KEEP_FLAG}): their label(s) {named} never appear "
                     f"in {trained_on}")
    missing = sorted(trained - set(counts) - set(said))
    if missing and per_example:
        notes.append(f"label {_shown(missing)} {'has' if len(missing) == 1 else 'have'} no example in {split}: "
                     f"nothing there measures {'it' if len(missing) == 1 else 'them'}")
    return SplitCheck(kept, notes)


def require_classes(labels: Iterable[Hashable], where: str = "the training set", *, at_least: int = 2,
                    what: str = "classification") -> None:
    """Refuse a training set with fewer than ``at_least`` classes, naming the one it has."""
    found = sorted({str(x) for x in labels})
    if len(found) < at_least:
        have = f"one label ({found[0]!r})" if found else "no label"
        raise WorkbenchError(f"{where} has {have}; {what} needs at least {at_least}")

