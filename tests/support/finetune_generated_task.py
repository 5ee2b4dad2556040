"""A generated sentence-classification task for the fine-tuning tests: chance is 50%.

Each sentence names one animal or one vehicle among neutral words (a person, a place, a time);
the label says which. The keyword's position and its neighbours vary, so a model must find the
one word that matters; a bag of the other words predicts nothing (they are drawn the same way for
both labels).
"""

from __future__ import annotations

import random

from lm_workbench.engine.data.tasks import ClassificationExample

ANIMALS = ("dog", "cat", "horse", "rabbit", "tiger", "eagle", "sheep", "goat", "wolf", "fox", "bear", "mouse",
           "duck", "lion", "frog", "owl")
VEHICLES = ("car", "truck", "bicycle", "train", "bus", "tractor", "scooter", "van", "tram", "motorbike",
            "taxi", "lorry", "jeep", "ferry", "canoe", "wagon")
PEOPLE = ("Anna", "Omar", "Mei", "Lukas", "Priya", "Diego", "Sara", "Kofi", "the teacher", "my neighbour")
PLACES = ("the market", "the old bridge", "the station", "the farm", "the river", "the school", "the park",
          "the harbour")
TIMES = ("on Monday", "at dawn", "last week", "after lunch", "in the rain", "yesterday", "at night")
TEMPLATES = ("{person} saw a {word} near {place} {time}.", "Near {place}, {person} noticed a {word} {time}.",
             "{time}, a {word} stood by {place} while {person} waited.",
             "{person} talked about the {word} at {place} {time}.")
LABELS = ("animal", "vehicle")


def generated_examples(n: int, seed: int) -> list[ClassificationExample]:
    """``n`` examples, half of each label, in a seeded order."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        label = LABELS[i % 2]
        word = rng.choice(ANIMALS if label == "animal" else VEHICLES)
        text = rng.choice(TEMPLATES).format(person=rng.choice(PEOPLE), word=word, place=rng.choice(PLACES),
                                            time=rng.choice(TIMES))
        out.append(ClassificationExample(text[0].upper() + text[1:], label))
    rng.shuffle(out)
    return out
