"""Readers for the fine-tuning formats (good and bad input), the seeded split, and the shipped demo sets."""

import json
import re
from collections import Counter

import pytest

from lm_workbench.engine.data import tasks
from lm_workbench.engine.data.squad import QAExample
from lm_workbench.engine.errors import TextEncodingError, WorkbenchError
from lm_workbench.engine.finetune.demo import DATA, DEMO_FILES, demo_path
from lm_workbench.engine.maths.metrics import bio_entities


def write(tmp_path, name, text, encoding="utf-8"):
    path = tmp_path / name
    path.write_bytes(text.encode(encoding) if isinstance(text, str) else text)
    return path


def test_classification_tsv_csv_jsonl(tmp_path):
    tsv = tasks.read_classification(write(tmp_path, "a.tsv", 'id\ttext\tlabel\n1\tgood film\tpos\n2\t"bad" film\tneg\n'))
    assert tsv.text_column == "text" and not tsv.is_pair
    assert [(e.text, e.label) for e in tsv.examples] == [("good film", "pos"), ('"bad" film', "neg")]
    assert tsv.labels == ["neg", "pos"] and tsv.label_id("pos") == 1
    csv_data = tasks.read_classification(write(tmp_path, "b.csv", 'sentence,label\n"Yes, good",1\nno,0\n'))
    assert csv_data.examples[0].text == "Yes, good" and csv_data.text_column == "sentence"
    jsonl = write(tmp_path, "c.jsonl", '{"sentence1": "a b", "sentence2": "b a", "label": "yes"}\n\n'
                                       '{"sentence1": "x", "sentence2": "y", "label": "no"}\n')
    pairs = tasks.read_classification(jsonl)
    assert pairs.is_pair and pairs.examples[0] == tasks.ClassificationExample("a b", "yes", "b a")
    chosen = tasks.read_classification(write(tmp_path, "d.tsv", "review\tlabel\nok\t1\nmeh\t0\n"), text_column="review")
    assert chosen.examples[1].text == "meh"


@pytest.mark.parametrize("name,content,message", [
    ("x.tsv", "review\tlabel\nok\t1\n", r"x\.tsv, line 1: no text column"),
    ("x.tsv", "text\tgold\nok\t1\n", r"x\.tsv, line 1: no 'label' column.*GLUE test file"),
    ("x.tsv", "text\tlabel\nok\t1\nfine\t1\n", r"only one label"),
    ("x.tsv", "text\tlabel\n", r"x\.tsv: no examples after the header"),
    ("x.tsv", "  \n", r"x\.tsv is empty"),
    ("x.tsv", "text\tlabel\nok\t\n", r"x\.tsv has no examples \(1 skipped; first: line 2: empty label\)"),
    ("x.csv", "text,label\nok,1\n" + "x" * 2_000 + ",0\n", r"x\.csv, line 3: not valid CSV"),
])
def test_classification_bad_input(tmp_path, name, content, message):
    import csv

    old_limit = csv.field_size_limit(1_000)  # the csv module's limit is process-wide (other readers raise it)
    try:
        with pytest.raises(WorkbenchError, match=message) as error:
            tasks.read_classification(write(tmp_path, name, content))
    finally:
        csv.field_size_limit(old_limit)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("name,content,line,reason", [
    ("x.tsv", "text\tlabel\nok\t1\nbad\nno\t0\n", 3, "1 column(s), the header has 2"),
    ("x.tsv", "text\tlabel\nok\t1\nfine\t\nno\t0\n", 3, "empty label"),
    ("x.tsv", "text\tlabel\nok\t1\n \t0\nno\t0\n", 3, "empty text"),
    ("x.jsonl", '{"text": "a", "label": 1}\n[1, 2]\n{"text": "b", "label": 0}\n', 2, "a JSON list, not an object"),
    ("x.jsonl", '{"text": "a", "label": 1}\n{oops\n{"text": "b", "label": 0}\n', 2, "not JSON"),
    ("x.jsonl", '{"text": "a", "label": 1}\n\n{"text": "b"}\n{"text": "c", "label": 0}\n', 3, "empty label"),
])
def test_rows_that_cannot_be_used_are_skipped_and_reported(tmp_path, name, content, line, reason):
    read = tasks.read_classification(write(tmp_path, name, content))
    assert len(read.examples) == 2 and read.labels == ["0", "1"]
    assert read.report.rows_read == 2 and read.report.rows_skipped == 1
    assert (read.report.skipped[0].line, read.report.skipped[0].reason.startswith(reason)) == (line, True)
    assert read.report.summary().startswith(f"read 2 rows, skipped 1 (first: line {line}: {reason}")


def test_non_utf8_names_file_and_line(tmp_path):
    path = write(tmp_path, "latin.tsv", "text\tlabel\nok\t1\ncaf\xe9\t0\n", encoding="latin-1")
    with pytest.raises(TextEncodingError, match=r"latin\.tsv is not UTF-8 text \(byte 19, line 3: 0xe9"):
        tasks.read_classification(path)
    with pytest.raises(WorkbenchError, match="no such file"):
        tasks.read_classification(tmp_path / "missing.tsv")


def test_bio_reader(tmp_path):
    path = write(tmp_path, "ner.conll", "-DOCSTART- -X- O\n\nAnna NNP B-PER\nlives VBZ O\nin IN O\n"
                                        "New NNP B-LOC\nYork NNP I-LOC\n\n\nHi UH O\n")
    tokens = tasks.read_bio(path)
    assert tokens.sentences[0] == tasks.TaggedSentence(("Anna", "lives", "in", "New", "York"),
                                                      ("B-PER", "O", "O", "B-LOC", "I-LOC"))
    assert len(tokens.sentences) == 2 and tokens.labels == ["O", "B-LOC", "B-PER", "I-LOC"]
    with pytest.raises(WorkbenchError, match=r"bad\.conll, sentence at line 1: tag 'PER' is not O"):
        tasks.read_bio(write(tmp_path, "bad.conll", "Anna B-PER\nBob PER\n"))
    with pytest.raises(WorkbenchError, match=r"one\.conll has no tagged sentences .*line 1: 1 column"):
        tasks.read_bio(write(tmp_path, "one.conll", "Anna\n"))


def squad(context, answer, start):
    return json.dumps({"data": [{"paragraphs": [{"context": context, "qas": [
        {"id": "q1", "question": "Where?", "answers": [{"text": answer, "answer_start": start}]}]}]}]}, indent=1)


def test_squad_reader(tmp_path):
    (example,) = tasks.read_squad(write(tmp_path, "qa.json", squad("She lives in Oslo.", "Oslo", 13)))
    assert example == QAExample("q1", "Where?", "She lives in Oslo.", ("Oslo",), (13,))
    with pytest.raises(WorkbenchError, match=r"off\.json, line \d+: answer 'Oslo' is not at answer_start 12"):
        tasks.read_squad(write(tmp_path, "off.json", squad("She lives in Oslo.", "Oslo", 12)))
    with pytest.raises(WorkbenchError, match=r"shape\.json: not SQuAD-style JSON"):
        tasks.read_squad(write(tmp_path, "shape.json", '{"data": [{"context": "x"}]}'))
    with pytest.raises(WorkbenchError, match=r"start\.json: not SQuAD-style JSON"):
        tasks.read_squad(write(tmp_path, "start.json", squad("She lives in Oslo.", "Oslo", "x")))
    with pytest.raises(WorkbenchError, match=r"broken\.json, line 2: not JSON"):
        tasks.read_squad(write(tmp_path, "broken.json", '{"data":\n ]'))


def test_squad_error_line_points_at_the_question(tmp_path):
    text = squad("She lives in Oslo.", "Oslo", 12)
    line = next(i for i, row in enumerate(text.splitlines(), 1) if '"q1"' in row)
    with pytest.raises(WorkbenchError, match=rf"line {line}:"):
        tasks.read_squad(write(tmp_path, "off.json", text))


def test_seq2seq_reader(tmp_path):
    rows = tasks.read_seq2seq(write(tmp_path, "s.tsv", "source\ttarget\nthe cat ran\tcat ran\n"))
    assert rows == [tasks.Seq2SeqExample("the cat ran", "cat ran")]
    with pytest.raises(WorkbenchError, match=r"s2\.csv, line 1: no 'target' column"):
        tasks.read_seq2seq(write(tmp_path, "s2.csv", "source,summary\na,b\n"))


def test_split_is_seeded_disjoint_and_complete():
    items = list(range(100))
    train, validation = tasks.train_validation_split(items, fraction=0.2, seed=3)
    assert len(validation) == 20 and sorted(train + validation) == items
    assert tasks.train_validation_split(items, 0.2, seed=3) == (train, validation)
    assert tasks.train_validation_split(items, 0.2, seed=4)[1] != validation
    assert len(tasks.train_validation_split([1, 2], 0.01)[1]) == 1
    with pytest.raises(WorkbenchError):
        tasks.train_validation_split([1], 0.1)


# ---------------------------------------------------------------- demo sets


def test_demo_sentiment_balanced_and_decided_by_its_lexicon():
    from scripts.make_finetune_demo import NEGATIVE, POSITIVE

    sentiment = tasks.read_classification(demo_path("seq-cls"))
    assert len(sentiment.examples) >= 300 and not sentiment.is_pair
    assert Counter(e.label for e in sentiment.examples) == {"positive": 200, "negative": 200}
    assert len({e.text for e in sentiment.examples}) == len(sentiment.examples)
    for example in sentiment.examples:
        words = set(re.findall(r"[a-z]+", example.text.lower()))
        assert bool(words & set(POSITIVE)) == (example.label == "positive")
        assert bool(words & set(NEGATIVE)) == (example.label == "negative")


def test_demo_paraphrase_pairs():
    pairs = tasks.read_classification(demo_path("seq-cls-pair"))
    assert pairs.is_pair and len(pairs.examples) >= 200
    assert Counter(e.label for e in pairs.examples) == {"yes": 120, "no": 120}
    for example in pairs.examples:  # "yes" exactly when both sentences mention the same content words
        content = [set(re.findall(r"[A-Z][a-z]+|[a-z]+", s)) - {"In", "A", "bought", "purchased", "was", "by",
                                                                "while", "in", "a"}
                   for s in (example.text, example.text_pair)]
        assert (content[0] == content[1]) == (example.label == "yes"), example


def test_demo_entities():
    tokens = tasks.read_bio(demo_path("token-cls"))
    assert len(tokens.sentences) >= 200
    kinds = Counter(kind for s in tokens.sentences for kind, _, _ in bio_entities(s.tags))
    assert set(kinds) == {"PER", "LOC", "ORG"} and min(kinds.values()) >= 100
    assert any("I-LOC" in s.tags for s in tokens.sentences)  # multi-word names exist
    assert any(set(s.tags) == {"O"} for s in tokens.sentences)


def test_demo_qa_and_seq2seq():
    questions = tasks.read_squad(demo_path("qa"))  # the reader checks every answer_start
    assert len(questions) >= 100 and len({q.context for q in questions}) >= 25
    assert len({q.answers[0] for q in questions}) > 50
    pairs = tasks.read_seq2seq(demo_path("seq2seq"))
    assert len(pairs) >= 200 and len({p.source for p in pairs}) == len(pairs)
    for pair in pairs:
        match = re.fullmatch(r"The (.+) (\w+ed) the (\w+)\.", pair.source)
        assert pair.target == f"The {match[3]} was {match[2]} by the {match[1]}."


def test_demo_path_names_every_task_and_refuses_others():
    assert all(demo_path(task).is_file() for task in DEMO_FILES)
    with pytest.raises(WorkbenchError, match="no demo set for task 'ner'"):
        demo_path("ner")


def test_demo_files_are_what_the_script_writes(tmp_path, monkeypatch):
    import scripts.make_finetune_demo as script

    monkeypatch.setattr(script, "OUT", tmp_path)
    script.main()
    for name in DEMO_FILES.values():
        assert (tmp_path / name).read_bytes() == (DATA / name).read_bytes(), name
