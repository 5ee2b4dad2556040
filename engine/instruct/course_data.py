"""The course's demonstration data: instruction categories with checkable answers, built from a seed.

Each record is Alpaca-style with a ``category``. Five categories follow a rule a small model can learn from a
few hundred demonstrations and apply to held-out prompts (words from a closed list of 26 that the course models'
tokenizer keeps whole, combined anew): ``reverse`` ("reverse: list name key" -> "key name list"), ``repeat``
("repeat: list name" -> "list name"), ``first`` ("first word: list name key" -> "list"), ``plural`` ("plural of
item" -> "items", regular nouns; the held-out nouns are new) and ``next``
("next number after 17" -> "18"). The sixth, ``capital`` ("capital of France" -> "Paris"), asks for facts: its
held-out countries never occur in the training file, so a small model cannot answer them however well it learnt
the format — the lecture's point that instruction tuning teaches a behaviour, not new knowledge.

``python -m lm_workbench.engine.instruct.course_data`` writes ``engine/finetune/data/instruct_train.jsonl`` and
``instruct_heldout.jsonl`` (the files the package ships; the same seed writes the same files).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

# Words of the Python documentation that the course models' byte-level BPE (trained on that text) keeps whole,
# with and without a leading space, so copying a word is copying one token.
WORDS = ("argument", "attribute", "class", "exception", "expression", "form", "format", "instance", "item", "key",
         "list", "name", "number", "object", "one", "parameter", "pattern", "point", "right", "set", "star", "type",
         "use", "value", "variable", "version")
NOUNS = ("argument", "attribute", "exception", "expression", "form", "format", "instance", "item", "key", "list",
         "name", "number", "object", "parameter", "pattern", "point", "set", "star", "type", "value", "variable",
         "version")
CAPITALS = (("France", "Paris"), ("Spain", "Madrid"), ("Italy", "Rome"), ("Germany", "Berlin"),
            ("Japan", "Tokyo"), ("Egypt", "Cairo"), ("Peru", "Lima"), ("Kenya", "Nairobi"), ("Cuba", "Havana"),
            ("Chile", "Santiago"), ("Greece", "Athens"), ("Norway", "Oslo"), ("Poland", "Warsaw"),
            ("Russia", "Moscow"), ("China", "Beijing"), ("India", "Delhi"), ("Iran", "Tehran"),
            ("Ireland", "Dublin"), ("Austria", "Vienna"), ("Portugal", "Lisbon"), ("Sweden", "Stockholm"),
            ("Finland", "Helsinki"), ("Hungary", "Budapest"), ("Canada", "Ottawa"))
CATEGORIES = ("reverse", "repeat", "first", "plural", "next", "capital")
PER_CATEGORY = {"train": 100, "heldout": 8}
FILES = {"train": "instruct_train.jsonl", "heldout": "instruct_heldout.jsonl"}
SEED = 33


def _words(rng: random.Random, n: int) -> list[str]:
    return rng.sample(WORDS, n)


def _record(category: str, instruction: str, output: str) -> dict[str, str]:
    return {"instruction": instruction, "input": "", "output": output, "category": category}


def _make(category: str, rng: random.Random, split: str, used: set[str]) -> dict[str, str]:
    for _ in range(1000):
        if category == "reverse":
            words = _words(rng, 3)
            record = _record(category, "reverse: " + " ".join(words), " ".join(reversed(words)))
        elif category == "repeat":
            words = _words(rng, rng.choice((2, 3)))
            record = _record(category, "repeat: " + " ".join(words), " ".join(words))
        elif category == "first":
            words = _words(rng, 3)
            record = _record(category, "first word: " + " ".join(words), words[0])
        elif category == "plural":
            nouns = NOUNS[:14] if split == "train" else NOUNS[14:]  # held-out nouns are new
            noun = rng.choice(nouns)
            record = _record(category, f"plural of {noun}", noun + "s")
        elif category == "next":
            n = rng.randrange(1, 60) if split == "train" else rng.randrange(60, 99)  # held-out numbers are new
            record = _record(category, f"next number after {n}", str(n + 1))
        else:
            pairs = CAPITALS[:16] if split == "train" else CAPITALS[16:]  # held-out countries are new
            country, city = rng.choice(pairs)
            record = _record(category, f"capital of {country}", city)
        key = record["instruction"]
        if key not in used or category in ("plural", "capital", "next") and split == "train":
            used.add(key)
            return record
    raise RuntimeError(f"cannot make a new {category} record")


def course_records(split: str, seed: int = SEED) -> list[dict[str, str]]:
    """The ``split`` ("train" or "heldout") records; no held-out instruction occurs in the training split."""
    rng = random.Random(f"{seed}-{split}")
    used = {r["instruction"] for r in course_records("train", seed)} if split == "heldout" else set()
    records = [_make(category, rng, split, used) for category in CATEGORIES for _ in range(PER_CATEGORY[split])]
    rng.shuffle(records)
    return records


def write_course_files(folder: Path) -> list[Path]:
    out = []
    for split, name in FILES.items():
        path = Path(folder) / name
        path.write_text("".join(json.dumps(r) + "\n" for r in course_records(split)), encoding="utf-8")
        out.append(path)
    return out


if __name__ == "__main__":
    for written in write_course_files(Path(__file__).resolve().parent.parent / "finetune" / "data"):
        print(written)
