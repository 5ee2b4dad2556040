"""The course preference pairs shipped in engine/finetune/data/ (deterministic: written again, the files do not
change; ``python -m lm_workbench.engine.preference.course_data``, or scripts/make_finetune_demo.py with the other demo sets).

Each record is ``{prompt, chosen, rejected, category}``: a question with a checkable answer, the correct answer as
``chosen`` and a wrong one as ``rejected`` (half of them of the same kind, "The sky is green.", half of another
kind, "The sky is Paris."). The answers are whole sentences that name the subject again ("The sky is blue."), so
what decides between the two is a few tokens before it, which a tiny GPT learns in a minute or two. Five
categories of small closed facts (colours, animal sounds, opposites, capitals, the next number), each asked in five
phrasings:

- preference.jsonl             four phrasings per fact, each with two wrong answers (400 pairs);
- preference_validation.jsonl  the fifth phrasing, never seen in training, with a wrong answer (50 pairs).

A model that learns from the pairs which answer goes with which fact prefers the correct answer on the held-out
phrasings too; one that only learnt the training prompts does not.

Usage: python -m lm_workbench.engine.preference.course_data
"""

from __future__ import annotations

import json
import random
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "finetune" / "data"
TRAIN_FILE, VALIDATION_FILE = "preference.jsonl", "preference_validation.jsonl"

FACTS = {
    "colour": {"the sky": "blue", "grass": "green", "snow": "white", "coal": "black", "blood": "red",
               "a banana": "yellow", "chocolate": "brown", "milk": "white", "a lemon": "yellow", "a tomato": "red"},
    "animal sound": {"a cow": "moo", "a dog": "woof", "a cat": "meow", "a duck": "quack", "a sheep": "baa",
                     "a lion": "roar", "an owl": "hoot", "a bee": "buzz", "a snake": "hiss", "a horse": "neigh"},
    "opposite": {"hot": "cold", "big": "small", "up": "down", "fast": "slow", "old": "new", "day": "night",
                 "open": "closed", "happy": "sad", "light": "dark", "early": "late"},
    "capital": {"France": "Paris", "Italy": "Rome", "Japan": "Tokyo", "Egypt": "Cairo", "Spain": "Madrid",
                "Germany": "Berlin", "Norway": "Oslo", "Peru": "Lima", "Kenya": "Nairobi", "Canada": "Ottawa"},
    "next number": {str(n): str(n + 1) for n in range(10)},
}
PHRASINGS = {
    "colour": ["What colour is {x}?", "Tell me the colour of {x}.", "Which colour does {x} have?",
               "Name the colour of {x}.", "What is the colour of {x}?"],
    "animal sound": ["What sound does {x} make?", "Which sound does {x} make?", "Tell me the sound of {x}.",
                     "How does {x} sound?", "What noise does {x} make?"],
    "opposite": ["What is the opposite of {x}?", "Give the opposite of {x}.", "Name the opposite of {x}.",
                 "Which word is the opposite of {x}?", "Tell me the opposite of {x}."],
    "capital": ["What is the capital of {x}?", "Name the capital of {x}.", "Which city is the capital of {x}?",
                "Tell me the capital of {x}.", "What city is {x}'s capital?"],
    "next number": ["What number comes after {x}?", "Which number follows {x}?", "What is {x} plus one?",
                    "Count on from {x}: what comes next?", "Name the number after {x}."],
}
# The answer is a whole sentence that names the subject again, as a helpful answer does: "The sky is blue."
ANSWERS = {
    "colour": "{X} is {y}.",
    "animal sound": "{X} says {y}.",
    "opposite": "The opposite of {x} is {y}.",
    "capital": "The capital of {x} is {y}.",
    "next number": "After {x} comes {y}.",
}
HELD_OUT = 4  # the phrasing (index) kept for validation


def _near(rng: random.Random, category: str, right: str) -> str:
    """A wrong answer of the same kind (another colour)."""
    return rng.choice(sorted({a for a in FACTS[category].values() if a != right}))


def _far(rng: random.Random, category: str) -> str:
    """A wrong answer of another kind (a city for a colour)."""
    other = rng.choice(sorted(c for c in FACTS if c != category))
    return rng.choice(sorted(set(FACTS[other].values())))


def _capital(text: str) -> str:
    return text[0].upper() + text[1:]


def records(seed: int = 0) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """(training pairs, held-out pairs)."""
    rng = random.Random(seed)
    train, held = [], []
    for category, facts in FACTS.items():
        for number, (subject, right) in enumerate(facts.items()):
            for index, phrasing in enumerate(PHRASINGS[category]):
                prompt = _capital(phrasing.format(x=subject))

                def answer(value: str) -> str:
                    return ANSWERS[category].format(x=subject, X=_capital(subject), y=value)

                if index == HELD_OUT:
                    wrong = _near(rng, category, right) if number % 2 else _far(rng, category)
                    held.append({"prompt": prompt, "chosen": answer(right), "rejected": answer(wrong),
                                 "category": category})
                else:
                    for wrong in (_near(rng, category, right), _far(rng, category)):
                        train.append({"prompt": prompt, "chosen": answer(right), "rejected": answer(wrong),
                                      "category": category})
    rng.shuffle(train)
    rng.shuffle(held)
    return train, held


def _write(path: Path, rows: list[dict[str, str]]) -> None:
    with path.open("w", encoding="utf-8", newline="\n") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")


def write_course_pairs(folder: Path) -> None:
    """Write both files into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    train, held = records()
    _write(folder / TRAIN_FILE, train)
    _write(folder / VALIDATION_FILE, held)


def main() -> None:
    write_course_pairs(OUT)


if __name__ == "__main__":
    main()
