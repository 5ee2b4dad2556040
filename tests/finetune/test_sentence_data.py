"""The sentence task's readers: GLUE STS-B's TSV as published, triplets in TSV / CSV / JSONL, NLI files turned into
triplets (entailment = positive, contradiction = negative, neutral counted and left out), ``--columns``, bad rows."""

from __future__ import annotations

import json

import pytest

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.sentence.data import SCORED, TRIPLETS, ScoredPair, Triplet, read_sentence_data

STSB_HEADER = "index\tgenre\tfilename\tyear\told_index\tsource1\tsource2\tsentence1\tsentence2\tscore"


def test_stsb_tsv_as_published_reads_pairs_and_skips_bad_rows(tmp_path):
    path = tmp_path / "train.tsv"
    path.write_text("\n".join([
        STSB_HEADER,
        '0\tmain-captions\tMSRvid\t2012test\t0001\tnone\tnone\tA plane is taking off.\tAn air plane is taking off.\t5.000',
        '1\tmain-news\theadlines\t2013\t0002\tnone\tnone\tHe said "no" twice.\tHe refused, twice.\t3.800',
        '2\tmain-news\theadlines\t2013\t0003\tnone\tnone\tA man plays.\t\t1.000',
        '3\tmain-news\theadlines\t2013\t0004\tnone\tnone\tA cat sleeps.\tA dog barks.\tn/a',
        '4\tmain-forums\tdeft\t2014\t0005\tnone\tnone\tA cat sleeps.\tA dog barks.\t0.250',
    ]) + "\n", encoding="utf-8")
    data = read_sentence_data(path)
    assert data.kind == SCORED and data.columns == ["sentence1", "sentence2", "score"]
    assert list(data) == [ScoredPair("A plane is taking off.", "An air plane is taking off.", 5.0),
                          ScoredPair('He said "no" twice.', "He refused, twice.", 3.8),  # quotes are text in TSV
                          ScoredPair("A cat sleeps.", "A dog barks.", 0.25)]
    assert data.score_max == 5.0
    assert [(s.line, s.reason) for s in data.report.skipped] == [
        (4, "a sentence is empty"), (5, "the score 'n/a' is not a number")]


@pytest.mark.parametrize("suffix", ["tsv", "csv", "jsonl"])
def test_triplets_in_every_table_format(tmp_path, suffix):
    rows = [("How old is the moon?", "The moon is 4.5 billion years old.", "The moon orbits the earth."),
            ("Who wrote Hamlet?", "Shakespeare wrote Hamlet, a tragedy.", "")]
    path = tmp_path / f"triplets.{suffix}"
    if suffix == "jsonl":
        path.write_text("".join(json.dumps({"anchor": a, "positive": p, "negative": n}) + "\n" for a, p, n in rows))
    elif suffix == "csv":
        path.write_text("anchor,positive,negative\n" + "".join(f'"{a}","{p}","{n}"\n' for a, p, n in rows))
    else:
        path.write_text("anchor\tpositive\tnegative\n" + "".join(f"{a}\t{p}\t{n}\n" for a, p, n in rows))
    data = read_sentence_data(path)
    assert data.kind == TRIPLETS
    assert list(data) == [Triplet(*rows[0]), Triplet(rows[1][0], rows[1][1], None)]
    assert not data.has_negatives and "1 row(s) have no negative" in data.report.notes


def test_nli_becomes_triplets_and_says_so(tmp_path):
    path = tmp_path / "nli.jsonl"
    rows = [("A man plays a guitar.", "A man makes music.", "entailment"),
            ("A man plays a guitar.", "A man sleeps.", "contradiction"),
            ("A man plays a guitar.", "A man is famous.", "neutral"),
            ("Two dogs run.", "Animals move.", "entailment"),
            ("Two dogs run.", "Dogs are outside.", "entailment"),
            ("Two dogs run.", "The dogs sit still.", "contradiction"),
            ("Kids swim.", "Children are in water.", "entailment")]
    path.write_text("".join(json.dumps({"premise": p, "hypothesis": h, "label": y}) + "\n" for p, h, y in rows))
    data = read_sentence_data(path)
    assert data.kind == TRIPLETS
    assert list(data) == [Triplet("A man plays a guitar.", "A man makes music.", "A man sleeps."),
                          Triplet("Two dogs run.", "Animals move.", "The dogs sit still."),
                          Triplet("Two dogs run.", "Dogs are outside.", "The dogs sit still."),
                          Triplet("Kids swim.", "Children are in water.", None)]
    note = data.report.notes[-1]
    assert "entailment = positive, contradiction = negative" in note
    assert "4 triplets, 3 with a negative; 1 neutral row(s) left out" in note


def test_columns_choose_a_score_or_a_negative(tmp_path):
    path = tmp_path / "mine.tsv"
    path.write_text("q\tgood\tbad\tsim\nWhat is red?\tRed is a colour.\tRed Sea.\t4\nHow far?\tVery far.\tNear.\t1\n")
    scored = read_sentence_data(path, ["q", "good", "sim"])
    assert scored.kind == SCORED and [e.score for e in scored] == [4.0, 1.0]
    triplets = read_sentence_data(path, ["q", "good", "bad"])
    assert triplets.kind == TRIPLETS and triplets[0] == Triplet("What is red?", "Red is a colour.", "Red Sea.")
    with pytest.raises(WorkbenchError, match="no 'nope' column"):
        read_sentence_data(path, ["q", "nope"])
    with pytest.raises(WorkbenchError, match="no sentence-pair columns"):
        read_sentence_data(path)
