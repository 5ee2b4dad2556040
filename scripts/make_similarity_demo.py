"""Writes the sentence-embedding demo set, engine/finetune/data/similarity.tsv (deterministic: run it again and the
file does not change), in GLUE STS-B's published TSV layout (index, genre, filename, year, old_index, source1,
source2, sentence1, sentence2, score; scores 0-5).

Every score follows from the two sentences alone. A sentence says that a person did something with an object in
a city; its partner restates it (5.0: the same words reordered; 4.6: the passive), changes one fact (2.4: another
object or city), denies it (1.0: "did not"), or is about someone else doing something else (0.2). An S-BERT model
off the shelf (all-MiniLM-L6-v2) rates a denial as nearly the same sentence, closer than a changed fact, so its
Spearman's rho on these pairs is low; fine-tuning with the cosine or CoSENT loss teaches it that "did not" matters,
which a student sees in the STS table before and after.

Usage: python scripts/make_similarity_demo.py
"""

from __future__ import annotations

import random
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "engine" / "finetune" / "data" / "similarity.tsv"
PAIRS = 360

PEOPLE = ["Anna", "Omar", "Li Wei", "Maria", "Kwame", "Sofia", "Ivan", "Priya", "Lucas", "Amara", "Jonas", "Mei",
          "Pedro", "Fatima", "Tom", "Yuki", "Elena", "Samir", "Nora", "David"]
CITIES = ["Paris", "Lagos", "Tokyo", "Lima", "Cairo", "Oslo", "Delhi", "Berlin", "Toronto", "Nairobi", "Madrid",
          "Seoul", "Dublin", "Rome", "Quito"]
# verb (past), verb (base, after "did not"), participle, objects it takes
ACTIONS = [("bought", "buy", "bought", ["a camera", "a lamp", "a guitar", "a painting", "a bicycle", "a coat"]),
           ("sold", "sell", "sold", ["a car", "a house", "a piano", "a boat", "a horse", "a watch"]),
           ("painted", "paint", "painted", ["a portrait", "a mural", "a fence", "a landscape", "a door"]),
           ("wrote", "write", "written", ["a novel", "a letter", "a song", "a poem", "a report"]),
           ("found", "find", "found", ["a wallet", "a key", "a ring", "a map", "a kitten"]),
           ("repaired", "repair", "repaired", ["a radio", "a roof", "a clock", "a bridge", "a laptop"])]
GENRES = ("restated", "passive", "changed", "denied", "unrelated")
SCORES = {"restated": 5.0, "passive": 4.6, "changed": 2.4, "denied": 1.0, "unrelated": 0.2}



def _pair(rng: random.Random, genre: str) -> tuple[str, str]:
    person, action, city = rng.choice(PEOPLE), rng.choice(ACTIONS), rng.choice(CITIES)
    past, base, participle, objects = action
    thing = rng.choice(objects)
    first = f"{person} {past} {thing} in {city}."
    if genre == "restated":
        return first, f"In {city}, {person} {past} {thing}."
    if genre == "passive":
        return first, f"{thing[0].upper()}{thing[1:]} was {participle} by {person} in {city}."
    if genre == "denied":
        return first, f"{person} did not {base} {thing} in {city}."
    if genre == "changed":
        if rng.random() < 0.5:
            other = rng.choice([o for o in objects if o != thing])
            return first, f"{person} {past} {other} in {city}."
        other_city = rng.choice([c for c in CITIES if c != city])
        return first, f"{person} {past} {thing} in {other_city}."
    other_person = rng.choice([p for p in PEOPLE if p != person])
    other_action = rng.choice([a for a in ACTIONS if a is not action])
    return first, f"{other_person} {other_action[0]} {rng.choice(other_action[3])} in {rng.choice(CITIES)}."


def write_similarity(path: Path) -> None:
    rng = random.Random(32)
    lines = ["index\tgenre\tfilename\tyear\told_index\tsource1\tsource2\tsentence1\tsentence2\tscore"]
    seen: set[tuple[str, str]] = set()
    while len(seen) < PAIRS:
        genre = GENRES[len(seen) % len(GENRES)]
        first, second = _pair(rng, genre)
        if (first, second) in seen:
            continue
        seen.add((first, second))
        index = len(seen) - 1
        lines.append(f"{index}\tdemo-{genre}\tworkbench\t2026\t{index:04d}\tnone\tnone\t{first}\t{second}\t"
                     f"{SCORES[genre]:.3f}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> None:
    write_similarity(OUT)
    print(f"wrote {PAIRS} pairs to {OUT}")


if __name__ == "__main__":
    main()
