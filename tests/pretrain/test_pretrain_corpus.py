"""Corpus reading for pre-training: documents, streaming, bad input, the Python-docs corpus."""

from __future__ import annotations

import json
import tracemalloc

import pytest

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.pretrain.corpus import CorpusSpec, corpus_lines, iter_corpus_lines, iter_documents, python_docs_corpus


def test_txt_blank_lines_separate_documents(tmp_path):
    path = tmp_path / "c.txt"
    path.write_bytes(b"First line.\r\n  Second line.  \n\n\n\nThird.\n   \nFourth.")
    assert list(iter_documents([path])) == [["First line.", "Second line."], ["Third."], ["Fourth."]]


def test_documents_do_not_run_across_files(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("one\ntwo", encoding="utf-8")  # no final newline, no blank line
    b.write_text("\ufeffthree\n", encoding="utf-8")  # a byte-order mark is not text
    assert list(iter_documents([a, b])) == [["one", "two"], ["three"]]
    assert [line.document for line in iter_corpus_lines([a, b])] == [0, 0, 1]
    assert list(corpus_lines([str(a), str(b)])) == ["one", "two", "three"]


def test_jsonl_text_field_is_a_document(tmp_path):
    path = tmp_path / "c.jsonl"
    rows = [{"text": "Alpha one.\nAlpha two.\n\n"}, {"text": "Beta.", "id": 3}]
    path.write_text(json.dumps(rows[0]) + "\n\n" + json.dumps(rows[1]) + "\n", encoding="utf-8")
    assert list(iter_documents([path])) == [["Alpha one.", "Alpha two."], ["Beta."]]


def test_non_utf8_names_file_and_line(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes("good\nalso good\ncaf\u00e9\n".encode("latin-1"))
    with pytest.raises(WorkbenchError) as err:
        list(iter_documents([path]))
    assert "latin1.txt" in str(err.value) and "line 3" in str(err.value) and "UTF-8" in str(err.value)


@pytest.mark.parametrize("bad, words", [("{not json", "not valid JSON"), ('{"title": "x"}', '"text"'),
                                        ('["text"]', '"text"')])
def test_jsonl_bad_line_names_file_and_line(tmp_path, bad, words):
    path = tmp_path / "c.jsonl"
    path.write_text('{"text": "fine"}\n' + bad + "\n", encoding="utf-8")
    with pytest.raises(WorkbenchError) as err:
        list(iter_documents([path]))
    assert "c.jsonl" in str(err.value) and "line 2" in str(err.value) and words in str(err.value)


def test_missing_file_and_empty_corpus(tmp_path):
    with pytest.raises(WorkbenchError, match="does not exist"):
        list(iter_documents([tmp_path / "nope.txt"]))
    with pytest.raises(WorkbenchError, match="no files"):
        list(iter_documents([]))
    empty = tmp_path / "empty.txt"
    empty.write_text("\n   \n\n", encoding="utf-8")
    with pytest.raises(WorkbenchError, match="no text"):
        list(iter_documents([empty]))


def test_a_corpus_bigger_than_memory_allows_is_streamed(tmp_path):
    """A 6 MB file that is one document: reading it line by line never holds more than a few lines."""
    path = tmp_path / "big.txt"
    line = ("word " * 59 + "end.\n").encode()  # 300 bytes
    with open(path, "wb") as out:
        for _ in range(20):
            out.write(line * 1000)
    size = path.stat().st_size
    assert size == 6_000_000
    tracemalloc.start()
    try:
        n, last_done = 0, 0
        for item in iter_corpus_lines([path]):
            assert item.document == 0 and item.bytes_done > last_done
            last_done = item.bytes_done
            n += 1
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert n == 20_000 and last_done == size
    assert peak < 200_000, f"peak {peak} bytes while streaming a {size}-byte file"


def test_python_docs_corpus_is_prose_and_idempotent(tmp_path):
    path = python_docs_corpus(tmp_path)
    assert path.parent == tmp_path and path.suffix == ".txt"
    stamp = path.stat().st_mtime_ns
    docs = list(iter_documents([path]))
    assert len(docs) > 50  # one per topic with prose (Python ships ~80 topics)
    lines = [line for doc in docs for line in doc]
    assert sum(len(line.split()) for line in lines) > 30_000
    assert all(line[-1] in ".!?\"')]" for line in lines)
    assert not any(line.startswith(">>>") or "::=" in line for line in lines)
    assert any("customize the meaning of attribute access" in line for line in lines)
    assert python_docs_corpus(tmp_path) == path and path.stat().st_mtime_ns == stamp
    explicit = python_docs_corpus(tmp_path / "sub" / "docs.txt")
    assert explicit.read_bytes() == path.read_bytes()


def test_the_course_corpus_is_the_shipped_file_whatever_the_python(tmp_path, monkeypatch):
    """Issue 48: one fixed text, the same on every machine; the running Python's pydoc_data is not read (a
    different Python's topics would change it), and the file's bytes are the recorded hash."""
    import hashlib
    import sys
    import types

    from lm_workbench.engine.pretrain import python_docs

    shipped = python_docs.SHIPPED.read_bytes()
    assert hashlib.sha256(shipped).hexdigest() == python_docs.PYTHON_DOCS_SHA256
    assert 200_000 < len(shipped) < 2_000_000  # modest: the wheel carries it
    other = types.ModuleType("pydoc_data.topics")
    other.topics = {"x": "A different Python documents different things in its topics today."}
    monkeypatch.setitem(sys.modules, "pydoc_data.topics", other)
    assert python_docs.python_docs_text("pydoc") != shipped.decode("utf-8")  # the stand-in Python differs
    assert python_docs_corpus(tmp_path).read_bytes() == shipped  # the course corpus does not


def test_corpus_spec_defaults():
    spec = CorpusSpec(paths=["a.txt"])
    assert (spec.validation_fraction, spec.seed) == (0.05, 0)
