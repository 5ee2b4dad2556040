"""Corpus and BEIR readers: the published shape, and bad input said, counted and skipped."""

from __future__ import annotations

import pytest

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.retrieval.beir import read_beir
from lm_workbench.engine.retrieval.corpus import read_corpus
from tests.support.retrieval_reference import write_beir


CORPUS = [{"_id": "d1", "title": "Paris", "text": "Paris is in France. "},
          {"_id": "d2", "title": "", "text": "Cats purr."},
          {"_id": "d3", "title": "Dogs", "text": ""}]
QUERIES = [{"_id": "q1", "text": "France"}, {"_id": "q2", "text": "cats"}, {"_id": "q3", "text": "nothing"}]


def test_beir_shape_documents_and_unknown_ids(tmp_path):
    folder = write_beir(tmp_path / "b", CORPUS, QUERIES,
                        [("q1", "d1", 2), ("q1", "d2", 0), ("q2", "d2", 1), ("q2", "nope", 1), ("qx", "d1", 1),
                         ("q3", "d3", 0), ("q2", "d1", "high")])
    data = read_beir(folder)
    assert data.corpus.ids == ["d1", "d2", "d3"]
    assert data.corpus.texts == ["Paris Paris is in France.", "Cats purr.", "Dogs"]  # title + " " + text, stripped
    assert data.query_ids == ["q1", "q2"]  # q3 judges nothing relevant: left out, counted
    assert data.qrels == {"q1": {"d1": 2, "d2": 0}, "q2": {"d2": 1}}
    said = " | ".join(data.notes)
    assert "1 judgement(s) name a document not in corpus.jsonl" in said
    assert "1 judgement(s) name a query not in queries.jsonl" in said
    assert "1 line(s) could not be read" in said
    assert "1 query(ies) with no relevant document" in said
    assert data.qrels_report.rows_skipped == 3


@pytest.mark.parametrize("missing, named", [("corpus.jsonl", "corpus.jsonl"), ("queries.jsonl", "queries.jsonl"),
                                            ("qrels/test.tsv", "qrels/test.tsv")])
def test_beir_missing_file_is_named(tmp_path, missing, named):
    folder = write_beir(tmp_path / "b", CORPUS, QUERIES, [("q1", "d1", 1)])
    (folder / missing).unlink()
    with pytest.raises(WorkbenchError, match=named.replace(".", r"\.")):
        read_beir(folder)


def test_beir_other_split_is_listed(tmp_path):
    folder = write_beir(tmp_path / "b", CORPUS, QUERIES, [("q1", "d1", 1)], split="dev")
    with pytest.raises(WorkbenchError, match="splits there: dev"):
        read_beir(folder, "test")
    assert read_beir(folder, "dev").query_ids == ["q1"]


def test_empty_corpus_and_text_numbering(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("\n  \n", encoding="utf-8")
    with pytest.raises(WorkbenchError, match="empty"):
        read_corpus(empty)
    lines = tmp_path / "p.txt"
    lines.write_text("first passage\n\nthird passage\n", encoding="utf-8")
    corpus = read_corpus(lines)
    assert corpus.ids == ["1", "3"] and corpus.texts == ["first passage", "third passage"]
    table = tmp_path / "p.tsv"
    table.write_text("id\ttext\nA\tone\nB\t\nA\tdup\nC\tthree\n", encoding="utf-8")
    corpus = read_corpus(table)
    assert corpus.ids == ["A", "C"] and corpus.report.rows_skipped == 2
    only_empty = tmp_path / "e.csv"
    only_empty.write_text("text\n\"\"\n", encoding="utf-8")
    with pytest.raises(WorkbenchError):
        read_corpus(only_empty)
