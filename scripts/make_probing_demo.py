"""Write the probing demo data: a POS set (CoNLL-U, Universal POS tags) and an STS pair file.

Run once from the repository root (``python scripts/make_probing_demo.py``);
the outputs are committed under ``engine/probing/data/``. The POS sentences
come from a small grammar whose every word is listed with its one UPOS tag
in the lexicon below, so a sentence's tags are right by construction: each
word is used only in the role its tag names (copula "was" is AUX, as in the
Universal Dependencies English treebanks). The STS pairs are hand-written:
for each base sentence a paraphrase (high score), a sentence on the same
topic that says something else (medium) and an unrelated one (low).
"""

from __future__ import annotations

import random
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "engine" / "probing" / "data"
SENTENCES = 400
SEED = 12

DET = ["the", "a", "this", "that", "every", "some"]
NOUN = ["dog", "cat", "teacher", "student", "farmer", "child", "bird", "river", "garden", "book", "letter",
        "car", "city", "house", "window", "song", "apple", "table", "door", "train", "doctor", "painter",
        "horse", "boat", "lamp", "friend", "neighbour", "baker", "island", "road", "sister", "brother", "pilot",
        "nurse", "king", "queen", "soldier", "sailor", "poet", "writer", "singer", "dancer", "lawyer",
        "judge", "miner", "tailor", "clerk", "driver", "guard", "monkey", "tiger", "lion", "rabbit", "mouse",
        "goat", "sheep", "cow", "duck", "owl", "fox", "wolf", "bear", "snake", "frog", "spider", "forest",
        "mountain", "valley", "village", "castle", "bridge", "tower", "church", "school", "market", "museum",
        "library", "kitchen", "bedroom", "garage", "office", "factory", "harbour", "station", "airport", "beach",
        "desert", "meadow", "lake", "ocean", "cloud", "storm", "candle", "mirror", "basket", "bottle", "cup",
        "plate", "spoon", "knife", "chair", "sofa", "carpet", "blanket", "pillow", "jacket", "shirt", "hat",
        "shoe", "glove", "ring", "necklace", "coin", "key", "map", "ticket", "parcel", "newspaper", "magazine",
        "picture", "photo", "violin", "piano", "guitar", "drum", "ball", "kite", "puzzle", "robot", "computer",
        "phone", "camera", "radio", "clock", "engine", "wheel", "bicycle", "truck", "ship", "plane", "rocket",
        "tent", "fence", "gate", "wall", "roof", "pond", "tree", "flower", "rose", "tulip", "carrot",
        "potato", "onion", "lemon", "banana", "cherry", "cake", "bread", "cheese", "soup", "salad", "sandwich",
        # also verbs or adjectives elsewhere in the grammar: their tag depends on the context
        "watch", "paint", "walk", "can", "light", "play"]
PLURAL = ["dogs", "cats", "students", "birds", "children", "books", "apples", "boats", "horses", "friends",
          "sailors", "tigers", "rabbits", "ducks", "owls", "soldiers", "nurses", "pilots", "goats", "sheep",
          "mice", "wolves", "bears", "frogs", "spiders", "singers", "dancers", "judges", "kings", "poets"]
PROPN = ["Anna", "Peter", "Maria", "Tom", "London", "Paris", "Lisa", "Omar", "Kenji", "Fatima", "Carlos",
         "Ingrid", "Priya", "Lucas", "Chloe", "Dmitri", "Amara", "Rome", "Berlin", "Cairo", "Lima", "Oslo",
         "Sydney", "Toronto", "Helen", "George", "Nadia", "Samuel", "Yusuf", "Mei"]
ADJ = ["small", "old", "red", "happy", "quiet", "green", "tall", "bright", "new", "tired", "clever", "cold", "fast", "light",
       "clean", "big", "young", "blue", "yellow", "brown", "purple", "angry", "brave", "calm", "gentle", "proud",
       "lazy", "busy", "noisy", "friendly", "famous", "strange", "empty", "heavy", "soft", "warm", "dark",
       "ancient", "modern", "tiny", "huge", "wet", "dry", "sweet", "sour", "rich", "poor", "shy", "curious",
       "honest", "wooden", "golden", "narrow", "wide", "lonely", "careful", "hungry"]
ADV = ["quickly", "slowly", "quietly", "again", "carefully", "happily", "fast", "loudly", "gently", "suddenly",
       "eagerly", "calmly", "badly", "twice", "proudly", "bravely", "politely"]
ADP = ["in", "on", "near", "under", "behind", "with", "beside", "before", "after"]
SCONJ = ["because", "when", "before", "after"]
NUM = ["two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "twelve", "twenty"]
SUBJ = ["she", "he", "they", "we", "I", "it"]
OBJ = ["her", "him", "them", "us", "me", "it"]
# (past, base): transitive and intransitive verbs
TRANS = [("saw", "see"), ("found", "find"), ("liked", "like"), ("painted", "paint"), ("opened", "open"),
         ("watched", "watch"), ("cleaned", "clean"), ("carried", "carry"), ("visited", "visit"),
         ("followed", "follow"), ("played", "play"), ("helped", "help"), ("chased", "chase"), ("met", "meet"),
         ("called", "call"), ("pushed", "push"), ("pulled", "pull"), ("fixed", "fix"), ("bought", "buy"),
         ("sold", "sell"), ("built", "build"), ("broke", "break"), ("drew", "draw"), ("kicked", "kick"),
         ("washed", "wash"), ("hid", "hide"), ("caught", "catch"), ("dropped", "drop"), ("lifted", "lift"),
         ("admired", "admire"), ("thanked", "thank"), ("ignored", "ignore"), ("noticed", "notice")]
INTRANS = [("slept", "sleep"), ("laughed", "laugh"), ("arrived", "arrive"), ("waited", "wait"),
           ("smiled", "smile"), ("danced", "dance"), ("worked", "work"), ("sang", "sing"),
           ("walked", "walk"), ("slipped", "slip"), ("shouted", "shout"), ("jumped", "jump"), ("cried", "cry"),
           ("rested", "rest"), ("swam", "swim"), ("fell", "fall"), ("paused", "pause"), ("listened", "listen"),
           ("yawned", "yawn"), ("whispered", "whisper"), ("returned", "return"), ("disappeared", "disappear")]


def _np(rng: random.Random, role: str) -> list[tuple[str, str]]:
    """A noun phrase: DET (ADV) (ADJ) NOUN, a name, or a pronoun in the case of ``role``."""
    pick = rng.random()
    if pick < 0.15:
        return [(rng.choice(PROPN), "PROPN")]
    if pick < 0.3:
        return [(rng.choice(SUBJ if role == "subj" else OBJ), "PRON")]
    out = [(rng.choice(DET), "DET")]
    if rng.random() < 0.4:
        if rng.random() < 0.3:
            out.append(("very", "ADV"))
        out.append((rng.choice(ADJ), "ADJ"))
    out.append((rng.choice(NOUN), "NOUN"))
    if out[0][0] == "a" and out[1][0][0] in "aeiou":
        out[0] = ("an", "DET")
    return out


def _pp(rng: random.Random) -> list[tuple[str, str]]:
    return [(rng.choice(ADP), "ADP")] + _np(rng, "obj")


def sentence(rng: random.Random) -> list[tuple[str, str]]:
    """One sentence as (word, UPOS) pairs, from one of the grammar's thirteen patterns."""
    t, i = rng.choice(TRANS), rng.choice(INTRANS)
    pattern = rng.randrange(13)
    if pattern == 0:
        body = _np(rng, "subj") + [(t[0], "VERB")] + _np(rng, "obj")
    elif pattern == 1:
        body = _np(rng, "subj") + [(i[0], "VERB"), (rng.choice(ADV), "ADV")]
    elif pattern == 2:
        body = _np(rng, "subj") + [(t[0], "VERB")] + _np(rng, "obj") + _pp(rng)
    elif pattern == 3:
        body = _np(rng, "subj") + [(rng.choice(["will", "can", "must"]), "AUX"), (t[1], "VERB")] + _np(rng, "obj")
    elif pattern == 4:
        body = _np(rng, "subj") + [("did", "AUX"), ("not", "PART"), (i[1], "VERB")]
    elif pattern == 5:
        other = rng.choice(INTRANS)
        body = (_np(rng, "subj") + [(i[0], "VERB"), (rng.choice(["and", "but"]), "CCONJ")]
                + _np(rng, "subj") + [(other[0], "VERB")])
    elif pattern == 6:
        body = _np(rng, "subj") + [("was", "AUX")] + ([("very", "ADV")] if rng.random() < 0.3 else []) + [
            (rng.choice(ADJ), "ADJ")]
    elif pattern == 7:
        other = rng.choice(INTRANS)
        body = (_np(rng, "subj") + [(i[0], "VERB"), (rng.choice(SCONJ), "SCONJ")]
                + _np(rng, "subj") + [(other[0], "VERB")])
    elif pattern == 8:
        body = [(rng.choice(NUM), "NUM"), (rng.choice(PLURAL), "NOUN"), (i[0], "VERB")] + _pp(rng)
    elif pattern == 9:
        body = _np(rng, "subj") + [(t[0], "VERB")] + _np(rng, "obj") + [(rng.choice(ADV), "ADV")]
    elif pattern == 10:  # "that" introducing a clause
        body = _np(rng, "subj") + [(rng.choice(["said", "knew", "thought"]), "VERB"), ("that", "SCONJ")] + _np(
            rng, "subj") + [(i[0], "VERB")]
    elif pattern == 11:  # "that" standing alone as the object
        body = _np(rng, "subj") + [(t[0], "VERB"), ("that", "PRON")] + _pp(rng)
    else:  # a verb that is also a noun, after a modal
        verb = rng.choice(["watch", "paint", "walk", "play", "clean"])
        body = _np(rng, "subj") + [(rng.choice(["will", "can", "must"]), "AUX"), (verb, "VERB")] + (
            _np(rng, "obj") if verb != "walk" else [(rng.choice(ADV), "ADV")])
    first, tag = body[0]
    if tag != "PROPN" and first != "I":
        body[0] = (first[0].upper() + first[1:], tag)
    return body + [(rng.choice([".", ".", ".", "!"]), "PUNCT")]


def write_pos(path: Path) -> int:
    rng = random.Random(SEED)
    seen: set[str] = set()
    blocks = []
    while len(blocks) < SENTENCES:
        words = sentence(rng)
        text = " ".join(w for w, _ in words[:-1]) + words[-1][0]
        if text in seen:
            continue
        seen.add(text)
        lines = [f"# sent_id = demo-{len(blocks) + 1}", f"# text = {text}"]
        for k, (word, tag) in enumerate(words, start=1):
            misc = "SpaceAfter=No" if k == len(words) - 1 else "_"
            lines.append("\t".join([str(k), word, "_", tag, "_", "_", "_", "_", "_", misc]))
        blocks.append("\n".join(lines))
    path.write_text("\n\n".join(blocks) + "\n\n", encoding="utf-8")
    return len(blocks)


# (base, paraphrase, paraphrase score, same topic, topic score, unrelated, unrelated score)
STS = [
    ("A man is playing a guitar.", "A man plays the guitar.", 4.8,
     "A man is tuning a piano.", 2.2, "The soup needs more salt.", 0.0),
    ("The cat is sleeping on the sofa.", "A cat sleeps on the couch.", 4.6,
     "The cat is chasing a mouse in the kitchen.", 1.8, "Stock prices fell sharply today.", 0.0),
    ("Two children are building a sandcastle.", "Two kids are making a castle out of sand.", 4.7,
     "Children are swimming at the beach.", 2.0, "The printer is out of paper.", 0.2),
    ("The train to Paris was delayed by an hour.", "The Paris train arrived an hour late.", 4.4,
     "The train to Paris was full of tourists.", 2.4, "She planted tomatoes in the garden.", 0.0),
    ("A woman is slicing an onion.", "A woman is cutting an onion into pieces.", 4.7,
     "A woman is peeling a potato.", 2.6, "The football match ended in a draw.", 0.0),
    ("The company reported higher profits this year.", "Profits at the firm rose this year.", 4.5,
     "The company hired fifty new workers.", 2.0, "A bird is singing in the tree.", 0.0),
    ("He forgot his umbrella and got wet.", "He left his umbrella at home and was soaked by the rain.", 4.2,
     "It rained all afternoon in the city.", 2.0, "The library opens at nine.", 0.2),
    ("The dog is running through the snow.", "A dog runs across a snowy field.", 4.4,
     "The dog is sleeping by the fire.", 1.6, "The senator gave a long speech.", 0.0),
    ("She is reading a book in the park.", "A woman reads a book in a park.", 4.6,
     "She is writing a letter in the park.", 2.6, "The engine makes a strange noise.", 0.0),
    ("The museum will close for repairs next month.", "Next month the museum shuts for renovation.", 4.5,
     "The museum has a new exhibition on ancient Egypt.", 1.8, "My brother likes spicy food.", 0.0),
    ("A boy is riding a bicycle down the hill.", "A boy rides his bike down a hill.", 4.8,
     "A boy is pushing a bicycle up the hill.", 2.8, "The bank raised interest rates.", 0.0),
    ("The storm knocked down several trees.", "Several trees fell during the storm.", 4.3,
     "The storm brought heavy rain to the coast.", 2.4, "He bought a new pair of shoes.", 0.0),
    ("The chef is stirring a pot of soup.", "A cook stirs soup in a pot.", 4.6,
     "The chef is baking bread.", 2.2, "The students passed the exam.", 0.0),
    ("Our flight was cancelled because of fog.", "Fog caused our flight to be cancelled.", 4.8,
     "Our flight landed on time despite the fog.", 2.0, "The kitten is playing with yarn.", 0.0),
    ("A girl is painting a picture of a horse.", "A girl paints a horse.", 4.4,
     "A girl is riding a horse.", 2.0, "The tax rules changed last year.", 0.0),
    ("The city council approved the new budget.", "The new budget was approved by the city council.", 5.0,
     "The city council debated the new park.", 2.2, "A monkey is eating a banana.", 0.0),
    ("A man is mowing the lawn.", "A man cuts the grass with a mower.", 4.6,
     "A man is watering the flowers.", 2.0, "The orchestra tuned their instruments.", 0.2),
    ("The baby is laughing at the puppy.", "A puppy makes the baby laugh.", 4.0,
     "The baby is crying in the crib.", 1.4, "Oil prices rose on Monday.", 0.0),
    ("Scientists discovered a new species of frog.", "A new kind of frog was found by scientists.", 4.6,
     "Scientists are studying how frogs survive winter.", 2.4, "The bus was crowded this morning.", 0.0),
    ("The team won the championship last night.", "Last night the team took the title.", 4.5,
     "The team lost its first game of the season.", 1.8, "She is knitting a red scarf.", 0.0),
    ("A woman is jogging along the river.", "A woman runs beside the river.", 4.6,
     "A woman is fishing in the river.", 2.2, "The software update fixed the bug.", 0.0),
    ("The students are listening to a lecture.", "Students listen to a talk in a lecture hall.", 4.2,
     "The students are taking an exam.", 2.0, "A squirrel buried a nut.", 0.0),
]


def write_sts(path: Path) -> int:
    rows = ["sentence1\tsentence2\tscore"]
    for base, para, ps, topic, ts, other, os_ in STS:
        rows += [f"{base}\t{para}\t{ps}", f"{base}\t{topic}\t{ts}", f"{base}\t{other}\t{os_}"]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return len(rows) - 1


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    print(write_pos(OUT / "pos_demo.conllu"), "POS sentences")
    print(write_sts(OUT / "sts_demo.tsv"), "STS pairs")
