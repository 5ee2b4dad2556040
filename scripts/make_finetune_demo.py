"""Writes the offline fine-tuning demo sets into engine/finetune/data/ (deterministic: run it again and
the files do not change). Every label follows from the text alone:

- sentiment.tsv    sentence classification: a review is positive or negative by its adjective lexicon;
- paraphrase.tsv   pair classification: sentence2 restates sentence1 (yes) or changes one fact (no);
- entities.conll   token classification: PER / LOC / ORG names from lists, tagged BIO;
- qa.json          extractive QA: short biographies, questions whose answers are spans of them;
- passive.tsv      seq2seq: an active sentence and its passive rewrite;
- similarity.tsv   sentence embedding: scored pairs in STS-B's layout (scripts/make_similarity_demo.py);
- instruct_train.jsonl, instruct_heldout.jsonl   instruction tuning: six categories with checkable answers
  (lm_workbench.engine.instruct.course_data);
- preference.jsonl preference pairs (and preference_validation.jsonl): lm_workbench.engine.preference.course_data.

Usage: python scripts/make_finetune_demo.py
"""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "engine" / "finetune" / "data"

POSITIVE = ["wonderful", "excellent", "delightful", "superb", "charming", "brilliant", "lovely", "great",
            "fantastic", "pleasant", "moving", "clever", "gripping", "beautiful", "enjoyable"]
NEGATIVE = ["terrible", "awful", "dreadful", "boring", "dull", "clumsy", "tedious", "poor", "horrible",
            "painful", "messy", "bland", "annoying", "ugly", "disappointing"]
THINGS = ["film", "book", "meal", "concert", "hotel", "play", "album", "game", "museum", "lecture",
          "show", "novel", "restaurant", "trip", "course"]
REVIEW_TEMPLATES = ["The {thing} was {adj}.", "What a {adj} {thing}!", "I found the {thing} {adj}.",
                    "Honestly, a {adj} {thing}.", "This {thing} is {adj} from start to finish.",
                    "My friends said the {thing} was {adj}, and it was.", "Such a {adj} {thing} overall."]

FIRST = ["Anna", "Omar", "Li", "Maria", "Kwame", "Sofia", "Ivan", "Priya", "Lucas", "Amara", "Jonas",
         "Mei", "Pedro", "Fatima", "Tom", "Yuki", "Elena", "Samir", "Nora", "David"]
LAST = ["Smith", "Okafor", "Chen", "Garcia", "Mensah", "Rossi", "Petrov", "Sharma", "Silva", "Diallo",
        "Berg", "Wang", "Costa", "Haddad", "Brown", "Tanaka", "Novak", "Khan", "Larsen", "Cohen"]
CITIES = ["Paris", "Lagos", "Tokyo", "Lima", "Cairo", "Oslo", "Delhi", "Berlin", "Toronto", "Nairobi",
          "New York", "Buenos Aires", "Hong Kong", "Cape Town", "Rio de Janeiro", "Madrid", "Seoul", "Dublin"]
ORGS = ["Acme Corporation", "Globex", "Initech", "Umbrella Labs", "Stark Industries", "Wayne Enterprises",
        "Blue Harbor Bank", "Northwind Traders", "Red Cedar Press", "Helios Energy", "Orbit Airlines",
        "Vertex Software", "Green Valley Farms", "Silver Line Railways"]
GOODS = ["bicycle", "piano", "painting", "car", "boat", "camera", "guitar", "telescope", "laptop", "lamp"]
JOBS = ["engineer", "teacher", "pilot", "designer", "lawyer", "chemist", "journalist", "architect"]
ANIMALS = ["cat", "dog", "fox", "horse", "rabbit", "mouse", "goat", "bird", "wolf", "bear", "duck", "frog"]
VERBS = ["chased", "followed", "pushed", "watched", "kicked", "helped", "pulled", "called", "visited",
         "carried", "noticed", "greeted"]


def person(rng: random.Random) -> str:
    return f"{rng.choice(FIRST)} {rng.choice(LAST)}"


def sentiment(rng: random.Random, per_label: int = 200) -> list[dict]:
    rows = []
    for label, lexicon in (("positive", POSITIVE), ("negative", NEGATIVE)):
        seen = set()
        while len(seen) < per_label:
            text = rng.choice(REVIEW_TEMPLATES).format(thing=rng.choice(THINGS), adj=rng.choice(lexicon))
            if text not in seen:
                seen.add(text)
                rows.append({"sentence": text, "label": label})
    rng.shuffle(rows)
    return rows


def paraphrase(rng: random.Random, n: int = 240) -> list[dict]:
    rows = []
    for i in range(n):
        who, city, good = person(rng), rng.choice(CITIES), rng.choice(GOODS)
        first = f"{who} bought a {good} in {city}."
        same = i % 2 == 0
        if not same:  # change exactly one fact
            which = rng.choice(["who", "city", "good"])
            if which == "who":
                who = rng.choice([p for p in (person(rng) for _ in range(5)) if p != who] or ["Someone Else"])
            elif which == "city":
                city = rng.choice([c for c in CITIES if c != city])
            else:
                good = rng.choice([g for g in GOODS if g != good])
        second = rng.choice([f"In {city}, {who} bought a {good}.", f"A {good} was bought by {who} in {city}.",
                             f"{who} purchased a {good} while in {city}."])
        rows.append({"sentence1": first, "sentence2": second, "label": "yes" if same else "no"})
    return rows


def entities(rng: random.Random, n: int = 240) -> list[list[tuple[str, str]]]:
    templates = ["{PER} works for {ORG} in {LOC} .", "{PER} moved to {LOC} last year .",
                 "Yesterday {PER} met {PER2} at the {ORG} office .", "{ORG} opened a new branch in {LOC} .",
                 "The director of {ORG} , {PER} , lives in {LOC} .", "We flew from {LOC} to {LOC2} with {PER} .",
                 "Nobody expected the meeting to end so early ."]
    sentences = []
    for i in range(n):
        template = templates[i % len(templates)]
        fill = {"PER": person(rng), "PER2": person(rng), "LOC": rng.choice(CITIES), "ORG": rng.choice(ORGS)}
        fill["LOC2"] = rng.choice([c for c in CITIES if c != fill["LOC"]])
        tagged = []
        for piece in template.split():
            slot = piece.strip("{}")
            if piece.startswith("{") and slot in fill:
                kind = slot.rstrip("2")
                for j, word in enumerate(fill[slot].split()):
                    tagged.append((word, ("B-" if j == 0 else "I-") + kind))
            else:
                tagged.append((piece, "O"))
        sentences.append(tagged)
    return sentences


def qa(rng: random.Random, n_paragraphs: int = 40) -> dict:
    paragraphs = []
    for i in range(n_paragraphs):
        who, city, org, job = person(rng), rng.choice(CITIES), rng.choice(ORGS), rng.choice(JOBS)
        year = str(rng.randint(1950, 2005))
        context = (f"{who} was born in {city} in {year}. After studying for some years, {who.split()[0]} "
                   f"joined {org} as a {job}. Colleagues remember a calm and careful worker.")
        questions = [(f"Where was {who} born?", city), (f"In which year was {who} born?", year),
                     (f"Which organisation did {who} join?", org), (f"What job did {who} have?", job)]
        qas = []
        for k, (question, answer) in enumerate(questions):
            start = context.index(answer)
            qas.append({"id": f"q{i}-{k}", "question": question,
                        "answers": [{"text": answer, "answer_start": start}]})
        paragraphs.append({"context": context, "qas": qas})
    return {"version": "demo", "data": [{"title": "Biographies", "paragraphs": paragraphs}]}


def passive(rng: random.Random, n: int = 240) -> list[dict]:
    rows, seen = [], set()
    while len(rows) < n:
        a, b = rng.sample(ANIMALS, 2)
        verb = rng.choice(VERBS)
        adjective = rng.choice(["", "old ", "small ", "brown ", "quick "])
        source = f"The {adjective}{a} {verb} the {b}."
        if source in seen:
            continue
        seen.add(source)
        rows.append({"source": source, "target": f"The {b} was {verb} by the {adjective}{a}."})
    return rows


def write_table(path: Path, rows: list[dict]) -> None:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), delimiter="\t", lineterminator="\n",
                                quoting=csv.QUOTE_NONE)
        writer.writeheader()
        writer.writerows(rows)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    write_table(OUT / "sentiment.tsv", sentiment(random.Random(1)))
    write_table(OUT / "paraphrase.tsv", paraphrase(random.Random(2)))
    with (OUT / "entities.conll").open("w", encoding="utf-8") as handle:
        for sentence in entities(random.Random(3)):
            handle.write("".join(f"{word}\t{tag}\n" for word, tag in sentence) + "\n")
    (OUT / "qa.json").write_text(json.dumps(qa(random.Random(4)), indent=1) + "\n", encoding="utf-8")
    write_table(OUT / "passive.tsv", passive(random.Random(5)))
    from scripts.make_similarity_demo import write_similarity  # the sentence-embedding pairs (issue 32)

    write_similarity(OUT / "similarity.tsv")
    from lm_workbench.engine.instruct.course_data import write_course_files  # instruct's demonstrations (issue 33)

    write_course_files(OUT)
    from lm_workbench.engine.preference.course_data import write_course_pairs  # preference.jsonl and its held-out phrasings

    write_course_pairs(OUT)


if __name__ == "__main__":
    main()
