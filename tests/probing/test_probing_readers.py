"""Probing task readers: CoNLL-U, CoNLL, sentence CSV/TSV and STS files, and their one-line errors."""

from __future__ import annotations

import pytest

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.probing.demo import POS_DEMO, STS_DEMO
from lm_workbench.engine.probing.readers import read_sentence_task, read_sts, read_token_task

CONLLU = """# sent_id = 1
# text = Don't go.
1-2\tDon't\t_\t_\t_\t_\t_\t_\t_\t_
1\tDo\tdo\tAUX\t_\t_\t3\taux\t_\t_
2\tn't\tnot\tPART\t_\t_\t3\tadvmod\t_\t_
3\tgo\tgo\tVERB\t_\t_\t0\troot\t_\tSpaceAfter=No
3.1\tgone\tgo\tVERB\t_\t_\t_\t_\t0:root\t_
4\t.\t.\tPUNCT\t_\t_\t3\tpunct\t_\t_

1\tHi\thi\tINTJ\t_\t_\t0\troot\t_\t_
"""


def test_conllu_reads_form_and_upos_skipping_comments_ranges_and_empty_nodes(tmp_path):
    path = tmp_path / "t.conllu"
    path.write_text(CONLLU, encoding="utf-8")
    task = read_token_task(path)
    assert task.sentences == [["Do", "n't", "go", "."], ["Hi"]]
    assert task.tags == [["AUX", "PART", "VERB", "PUNCT"], ["INTJ"]]


def test_conll_takes_the_first_and_last_columns(tmp_path):
    path = tmp_path / "t.conll"
    path.write_text("The DT B-NP\ndog NN I-NP\n\n\nRuns VBZ B-VP\n", encoding="utf-8")
    task = read_token_task(path)
    assert task.sentences == [["The", "dog"], ["Runs"]] and task.tags == [["B-NP", "I-NP"], ["B-VP"]]


@pytest.mark.parametrize("name, content, message", [
    ("bad.conllu", b"1\tword\t_\tNOUN\n", r"line 1: 4 tab-separated column\(s\), a CoNLL-U word line has 10"),
    ("bad.conll", b"The DT\nlonely\n", r"line 2: 1 column\(s\); a word and its tag"),
    ("bad.conll", b"ok X\n\xff\xfe bad\n", r"not UTF-8 text \(byte 5, line 2: 0xff"),
    ("empty.conll", b"\n# only a comment\n", "has no tagged sentences"),
])
def test_bad_token_files_name_the_file_and_line(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(WorkbenchError, match=message) as info:
        read_token_task(path)
    assert str(path) in str(info.value) and "\n" not in str(info.value)


def test_sentence_task_from_tsv_and_csv(tmp_path):
    tsv = tmp_path / "s.tsv"
    tsv.write_text("label\ttext\npos\tGreat film.\nneg\tDull, slow.\n", encoding="utf-8")
    task = read_sentence_task(tsv)
    assert task.texts == ["Great film.", "Dull, slow."] and task.labels == ["pos", "neg"]
    csv_file = tmp_path / "s.csv"
    csv_file.write_text('text,label\n"Great, truly.",pos\nBad.,neg\n', encoding="utf-8")
    assert read_sentence_task(csv_file).texts == ["Great, truly.", "Bad."]


@pytest.mark.parametrize("content, message", [
    ("text\nhello\n", "line 1: no 'label' column.*a GLUE test file"),
    ("text,label\nhello,pos\n,neg\n", "every row has the label 'pos'"),
    ("text,label\na,x\nb,x\n", "a probe needs at least two labels"),
    ("", "is empty"),
])
def test_bad_sentence_files(tmp_path, content, message):
    path = tmp_path / "s.csv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(WorkbenchError, match=message):
        read_sentence_task(path)


def test_sts_reader_and_its_errors(tmp_path):
    path = tmp_path / "sts.tsv"
    path.write_text("sentence1\tsentence2\tscore\na\tb\t1.5\nc\td\t4\ne\tf\t0\n", encoding="utf-8")
    pairs = read_sts(path)
    assert pairs.first == ["a", "c", "e"] and pairs.second == ["b", "d", "f"] and pairs.scores == [1.5, 4.0, 0.0]
    path.write_text("sentence1\tsentence2\tscore\na\tb\thigh\n", encoding="utf-8")
    with pytest.raises(WorkbenchError, match=r"sts.tsv has no .*line 2: the score 'high' is not a number"):
        read_sts(path)
    path.write_text("sentence1\tscore\na\t1\n", encoding="utf-8")
    with pytest.raises(WorkbenchError, match="no 'sentence2' column"):
        read_sts(path)
    with pytest.raises(WorkbenchError, match="no such file"):
        read_sts(tmp_path / "missing.tsv")


def test_the_demo_sets_are_large_enough_and_well_formed():
    task = read_token_task(POS_DEMO)
    assert len(task.sentences) >= 300
    tags = {t for s in task.tags for t in s}
    assert {"NOUN", "VERB", "DET", "ADJ", "ADP", "PRON", "AUX", "PUNCT", "SCONJ"} <= tags
    # ambiguous words whose tag depends on the context, so a probe has something to learn beyond identity
    that = {t for words, ts in zip(task.sentences, task.tags) for w, t in zip(words, ts) if w.lower() == "that"}
    assert that == {"DET", "PRON", "SCONJ"}
    pairs = read_sts(STS_DEMO)
    assert len(pairs.scores) >= 60 and min(pairs.scores) >= 0 and max(pairs.scores) <= 5
