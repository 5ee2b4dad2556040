"""The one table reader, on files as the field publishes them: every reader keeps every row, skipped rows
are named, and each kept cell equals what an independent split of the line gives."""

import json

import pytest

from lm_workbench.engine.data import tasks
from lm_workbench.engine.data.table import peek_header, read_table
from lm_workbench.engine.embeddings.corpus import read_corpus
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.probing.readers import read_sentence_task, read_sts
from lm_workbench.engine.progress import run_to_completion
from tests.data.published_shapes import RTE_DEV, SST2_TEST, SST2_TRAIN, STSB_PAIRS, stsb_dev
from lm_workbench.prompting.runs import read_prompt_data


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def cells(text):
    """The rows of a GLUE-style TSV by the format's own rule (a tab separates, nothing else): the oracle."""
    lines = [line for line in text.splitlines() if line.strip()]
    header = lines[0].split("\t")
    return [dict(zip(header, line.split("\t"))) for line in lines[1:]]


QUOTED = ("text\tlabel\tsentence1\tsentence2\tscore\n"
          + "".join(f"{a}\t{'pos' if i % 2 else 'neg'}\t{a}\t{b}\t{s}\n" for i, (a, b, s) in enumerate(STSB_PAIRS)))


def test_a_tsv_with_quotes_loses_no_row_in_any_reader(tmp_path):
    path = write(tmp_path, "quoted.tsv", QUOTED)
    expected = cells(QUOTED)
    assert len(expected) == 8 and sum('"' in row["text"] for row in expected) == 3
    texts = [row["text"] for row in expected]
    corpus = run_to_completion(read_corpus(path))
    assert corpus.lines == texts and corpus.report.rows_skipped == 0
    assert read_sentence_task(path).texts == texts
    sts = read_sts(path)
    assert (sts.first, sts.second) == ([r["sentence1"] for r in expected], [r["sentence2"] for r in expected])
    assert sts.scores == [float(r["score"]) for r in expected]
    pairs = tasks.read_classification(path)  # sentence1 / sentence2 present: a pair task
    assert [(e.text, e.text_pair) for e in pairs.examples] == [(r["sentence1"], r["sentence2"]) for r in expected]
    assert [e.text for e in read_prompt_data(str(path), []).examples] == [r["sentence1"] for r in expected]


def test_glue_sst2_rte_and_stsb_as_published(tmp_path):
    sst2 = tasks.read_classification(write(tmp_path, "train.tsv", SST2_TRAIN))
    assert [e.text for e in sst2.examples] == [r["sentence"] for r in cells(SST2_TRAIN)]
    assert sst2.labels == ["0", "1"] and sst2.report.summary() == (
        "read 6 rows, skipped 0; TSV quoting: literal (no field in csv's quoted form, so quotes are text as in GLUE)")
    rte = tasks.read_classification(write(tmp_path, "dev.tsv", RTE_DEV))
    assert rte.is_pair and rte.labels == ["entailment", "not_entailment"]
    assert rte.examples[1].text == 'Anna said "no" to the offer.'
    stsb = read_sts(write(tmp_path, "sts-dev.tsv", stsb_dev()))
    assert len(stsb.scores) == len(STSB_PAIRS) == stsb.report.rows_read
    assert stsb.first[1] == 'He said "no.' and stsb.second[1] == 'He said "yes."' and stsb.scores[1] == 1.2


def test_an_unlabeled_glue_test_file_is_refused_for_training_but_reads_as_a_corpus(tmp_path):
    path = write(tmp_path, "test.tsv", SST2_TEST)
    with pytest.raises(WorkbenchError, match=r"test\.tsv, line 1: no 'label' column.*GLUE test file"):
        tasks.read_classification(path)
    with pytest.raises(WorkbenchError, match="GLUE test file"):
        read_sentence_task(path)
    assert run_to_completion(read_corpus(path)).lines == ['an " odd " little film', "a pleasure from start to finish"]


def test_a_row_with_a_stray_tab_is_skipped_and_named(tmp_path):
    broken = stsb_dev().splitlines(keepends=True)
    broken[3] = broken[3].replace("A woman is slicing", "A woman\tis slicing")  # line 4 of the file
    stsb = read_sts(write(tmp_path, "sts.tsv", "".join(broken)))
    assert len(stsb.scores) == len(STSB_PAIRS) - 1
    report = stsb.report
    assert (report.rows_read, report.rows_skipped) == (7, 1)
    assert report.summary() == "read 7 rows, skipped 1 (first: line 4: 11 column(s), the header has 10 (a tab " \
                               "inside a sentence?)); TSV quoting: literal (no field in csv's quoted form, so quotes " \
                               "are text as in GLUE)"
    assert report.as_json()["skipped"] == [{"line": 4, "reason": "11 column(s), the header has 10 (a tab inside "
                                                                  "a sentence?)"}]


def test_csv_follows_rfc_4180(tmp_path):
    text = 'text,label\n"Great, truly.",pos\n"She said ""hi"".",neg\n"two\nlines",pos\nplain,neg\n'
    table = read_table(write(tmp_path, "r.csv", text))
    assert [r.cells["text"] for r in table.rows] == ["Great, truly.", 'She said "hi".', "two\nlines", "plain"]
    assert [r.line for r in table.rows] == [2, 3, 5, 6]  # a row spanning lines counts as its last


def test_jsonl_fields_chosen_by_name(tmp_path):
    rows = [{"id": 1, "review": "Loved it", "stars": "pos", "note": None},
            {"id": 2, "review": "Hated it", "stars": "neg", "extra": [1, 2]}]
    path = write(tmp_path, "r.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    read = tasks.read_classification(path, text_column="review", label_column="stars")
    assert [(e.text, e.label) for e in read.examples] == [("Loved it", "pos"), ("Hated it", "neg")]
    corpus = run_to_completion(read_corpus(path, text_column="review", label_column="stars"))
    assert corpus.lines == ["Loved it", "Hated it"] and corpus.labels == ["pos", "neg"]
    assert read_table(path).header == ["id", "review", "stars", "note", "extra"]


@pytest.mark.parametrize("name, text", [("a.tsv", 'id\t"quoted" col\tlabel\n1\tx\ty\n'),
                                        ("a.csv", 'id,"a, b",label\n1,x,y\n'),
                                        ("a.jsonl", '{"id": 1, "a, b": "x", "label": "y"}\n')])
def test_the_column_chooser_sees_the_header_the_reader_sees(tmp_path, name, text):
    path = write(tmp_path, name, text)
    assert peek_header(path) == read_table(path).header
