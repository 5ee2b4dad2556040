"""CoNLL-2003 and CoNLL-U as published, against hand-written expectations."""

import pytest

from lm_workbench.engine.data import tasks
from lm_workbench.engine.data.conll import read_conll
from lm_workbench.engine.errors import WorkbenchError
from tests.data.published_shapes import (
    CONLL2003_IOB1, CONLL2003_NER_IOB2, CONLL2003_POS, CONLL2003_WORDS, CONLLU, CONLLU_UPOS, CONLLU_WORDS,
)


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_conll2003_ner_iob1_becomes_iob2_and_says_so(tmp_path):
    read = read_conll(write(tmp_path, "eng.train", CONLL2003_IOB1))
    assert read.sentences == CONLL2003_WORDS and read.tags == CONLL2003_NER_IOB2
    assert read.report.notes == ["passed over 2 -DOCSTART- line(s)",
                                 "converted IOB1 tags to IOB2 (4 entities began with I-)"]
    assert read.report.summary().startswith("read 3 sentences, skipped 0; passed over 2 -DOCSTART-")
    assert read.lines == [3, 10, 21]


def test_the_tag_column_is_chosen_by_position(tmp_path):
    path = write(tmp_path, "eng.train", CONLL2003_IOB1)
    pos = read_conll(path, tag_column=2)
    assert pos.tags == CONLL2003_POS and not any("IOB" in n for n in pos.report.notes)
    chunks = read_conll(path, tag_column=3)
    assert chunks.tags[0] == ["B-NP", "B-VP", "B-NP", "I-NP", "I-NP", "O"]
    with pytest.raises(WorkbenchError, match="column 1 holds the word"):
        read_conll(path, tag_column=1)


def test_fine_tuning_reads_conll2003_as_iob2(tmp_path):
    tokens = tasks.read_bio(write(tmp_path, "eng.train", CONLL2003_IOB1))
    assert [list(s.tags) for s in tokens.sentences] == CONLL2003_NER_IOB2
    assert tokens.labels == ["O", "B-LOC", "B-MISC", "B-PER", "I-PER"]


def test_an_iob2_file_without_docstart_is_left_as_it_is(tmp_path):
    text = "".join(f"{w} {t}\n" for w, t in zip(CONLL2003_WORDS[1], CONLL2003_NER_IOB2[1]))
    read = read_conll(write(tmp_path, "iob2.conll", text))
    assert read.tags == [CONLL2003_NER_IOB2[1]] and read.report.notes == []


def test_conllu_passes_over_ranges_and_empty_nodes_and_counts_them(tmp_path):
    read = read_conll(write(tmp_path, "en_ewt-ud-dev.conllu", CONLLU))
    assert read.format == "conllu"
    assert read.sentences == CONLLU_WORDS and read.tags == CONLLU_UPOS
    assert read.report.notes == ["passed over 1 multiword token(s) (ranges such as 3-4) and 1 empty node(s) "
                                 "(such as 5.1)"]
    assert read_conll(write(tmp_path, "x.conllu", CONLLU), tag_column=5).tags[0] == ["PRP", "MD", "RB", "VB", "."]


def test_a_broken_line_leaves_out_its_sentence_only_and_names_it(tmp_path):
    lines = CONLL2003_IOB1.splitlines(keepends=True)
    lines[11] = "Anna\n"  # line 12: the word has lost its columns
    read = read_conll(write(tmp_path, "eng.train", "".join(lines)))
    assert read.sentences == [CONLL2003_WORDS[0], CONLL2003_WORDS[2]]
    assert (read.report.rows_read, read.report.rows_skipped) == (2, 1)
    assert read.report.skipped[0].line == 12 and "its sentence is left out" in read.report.skipped[0].reason
