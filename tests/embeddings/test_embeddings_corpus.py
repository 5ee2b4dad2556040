"""Corpus input, the demo set and occurrence matching.

Readers are checked against files written here; occurrences against the
tokenizer's own pre-tokenisation (``pre_tokenize_str``), computed separately.
"""

from __future__ import annotations

import csv
import json
import re
import tomllib
from pathlib import Path

import pytest

from lm_workbench.engine.embeddings.corpus import corpus_from_text, read_corpus
from lm_workbench.engine.embeddings.demo_set import demo_corpus, demo_words
from lm_workbench.engine.embeddings.occurrences import find_occurrences, normalise_words
from lm_workbench.engine.errors import Cancelled, WorkbenchError
from lm_workbench.engine.progress import CancelToken, Progress, iter_with_progress, run_to_completion
from lm_workbench.engine.tokens import tokenize

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def minilm_tokenizer():
    """MiniLM's tokenizer alone (no weights needed here)."""
    from transformers import AutoTokenizer

    from lm_workbench.engine.models.default import default_model_folder

    return AutoTokenizer.from_pretrained(default_model_folder())


def read(path, **kwargs):
    return run_to_completion(read_corpus(path, **kwargs))


def test_txt_one_text_per_line_skipping_blanks(tmp_path):
    path = tmp_path / "c.txt"
    path.write_bytes("\ufeffFirst line here.\n\n   \n  Second line.  \r\nThird.".encode("utf-8"))
    corpus = read(path)
    assert corpus.lines == ["First line here.", "Second line.", "Third."]
    assert corpus.line_numbers == [1, 4, 5]
    assert corpus.labels is None and corpus.source == str(path)


def test_csv_detects_text_and_label_columns(tmp_path):
    path = tmp_path / "c.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "Sentence", "Label"])
        w.writerow([1, "The bank, by the river, flooded.", "river"])
        w.writerow([2, "He robbed a \"bank\".", "money"])
        w.writerow([3, "", "skipped"])
        w.writerow([4, "No label here.", ""])
    corpus = read(path)
    assert corpus.lines == ["The bank, by the river, flooded.", 'He robbed a "bank".', "No label here."]
    assert corpus.labels == ["river", "money", None]
    assert corpus.line_numbers == [2, 3, 5]
    assert corpus.label_name == "Label"


def test_csv_first_string_column_and_explicit_columns(tmp_path):
    path = tmp_path / "c.csv"
    path.write_text("n,content,tag\n7,a cat sat,animal\n8,a car sped,vehicle\n", encoding="utf-8")
    auto = read(path)
    assert auto.lines == ["a cat sat", "a car sped"] and auto.labels is None
    named = read(path, text_column="content", label_column="tag")
    assert named.labels == ["animal", "vehicle"]
    with pytest.raises(WorkbenchError, match="no 'sense' column.*n, content, tag"):
        read(path, label_column="sense")


def test_tsv_with_sense_column(tmp_path):
    path = tmp_path / "c.tsv"
    path.write_text("word\tsense\ttext\nbat\tanimal\tA bat, flying.\nbat\tsport\tHe swung the bat.\n",
                    encoding="utf-8")
    corpus = read(path)
    assert corpus.lines == ["A bat, flying.", "He swung the bat."]
    assert corpus.labels == ["animal", "sport"]


def test_jsonl_text_and_label(tmp_path):
    path = tmp_path / "c.jsonl"
    rows = [{"text": "One\nparagraph.", "sense": "a"}, {"text": "Two.", "sense": 3}, {"text": "Three."}]
    path.write_text("\n".join(json.dumps(r) for r in rows[:2]) + "\n\n" + json.dumps(rows[2]) + "\n",
                    encoding="utf-8")
    corpus = read(path)
    assert corpus.lines == ["One paragraph.", "Two.", "Three."]
    assert corpus.labels == ["a", "3", None]
    assert corpus.line_numbers == [1, 2, 4]


@pytest.mark.parametrize("content, line, reason", [
    ('{"text": "ok"}\n{"text": broken}\n', 2, "not JSON"),
    ('{"text": "ok"}\n{"body": "x"}\n', 2, "no text in the 'text' column"),
    ('["a list"]\n{"text": "ok"}\n', 1, "not an object"),
])
def test_jsonl_lines_that_cannot_be_read_are_skipped_and_named(tmp_path, content, line, reason):
    path = tmp_path / "bad.jsonl"
    path.write_text(content, encoding="utf-8")
    corpus = read(path)
    assert corpus.lines == ["ok"]
    assert corpus.report.rows_read == 1 and corpus.report.rows_skipped == 1
    assert corpus.report.skipped[0].line == line and reason in corpus.report.skipped[0].reason
    assert f"skipped 1 (first: line {line}: " in corpus.report.summary()


def test_a_jsonl_file_with_no_readable_line_says_why(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"text": broken}\n', encoding="utf-8")
    with pytest.raises(WorkbenchError, match="line 1: not JSON"):
        read(path)


def test_non_utf8_names_the_line(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes("good line\nanother good one\ncaf\u00e9 au lait\n".encode("latin-1"))
    with pytest.raises(WorkbenchError) as info:
        read(path)
    message = str(info.value)
    assert "latin1.txt" in message and "line 3" in message and "0xe9" in message and "UTF-8" in message
    assert "\n" not in message


@pytest.mark.parametrize("name, content", [("blank.txt", "\n  \n\n"), ("header.csv", "text,label\n"),
                                           ("empty.jsonl", "")])
def test_empty_corpus_is_refused(tmp_path, name, content):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(WorkbenchError, match="empty"):
        read(path)
    with pytest.raises(WorkbenchError, match="empty"):
        corpus_from_text(" \n\t\n")


def test_missing_file(tmp_path):
    with pytest.raises(WorkbenchError, match="does not exist"):
        read(tmp_path / "nope.txt")


def test_large_file_is_streamed_with_byte_progress_and_can_be_cancelled(tmp_path):
    path = tmp_path / "big.txt"
    line = "the quick brown fox jumps over the lazy dog near the river bank again and again\n"
    count = 50_000  # ~4 MB
    path.write_text(line * count, encoding="utf-8")
    size = path.stat().st_size
    reports = list(iter_with_progress(read_corpus(path)))
    corpus = reports[-1]
    progress = [r for r in reports[:-1] if isinstance(r, Progress)]
    assert len(corpus.lines) == count and corpus.line_numbers[-1] == count
    assert len(progress) >= size // (1 << 20)  # at least one report per MiB
    dones = [p.done for p in progress]
    assert dones == sorted(dones) and progress[-1].done == progress[-1].total == size
    assert all(p.total == size for p in progress)

    token = CancelToken()
    gen = read_corpus(path, cancel=token)
    next(gen)
    token.cancel()
    with pytest.raises(Cancelled):
        run_to_completion(gen)


def test_demo_set_shape_and_package_data():
    corpus = demo_corpus()
    words = demo_words()
    assert len(words) >= 8
    counts: dict[str, dict[str, int]] = {}
    for label in corpus.labels:
        word, sense = label.split(":")
        counts.setdefault(word, {}).setdefault(sense, 0)
        counts[word][sense] += 1
    assert set(counts) == set(words)
    for word, senses in counts.items():
        assert len(senses) >= 2, word
        assert min(senses.values()) >= 10, (word, senses)
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["lm_workbench.engine.embeddings"]
    data = ROOT / "engine" / "embeddings" / "data" / "polysemy_demo.tsv"
    assert any(data.match("*/engine/embeddings/" + p) for p in patterns)


def test_demo_sentences_hold_their_word_once_and_no_other(minilm_tokenizer):
    """Checked on MiniLM's own pre-tokenizer, independently of the engine's matcher."""
    corpus = demo_corpus()
    words = set(demo_words())
    pre = minilm_tokenizer.backend_tokenizer.pre_tokenizer
    for sentence, label in zip(corpus.lines, corpus.labels):
        found = [w.lower() for w, _ in pre.pre_tokenize_str(sentence) if w.lower() in words]
        assert found == [label.split(":")[0]], sentence


def _expected_by_pretokenizer(tokenizer, text, word):
    """(word index, start, end) of ``word`` among the tokenizer's pre-tokenised words."""
    backend = tokenizer.backend_tokenizer
    out = []
    for i, (_piece, (start, end)) in enumerate(backend.pre_tokenizer.pre_tokenize_str(text)):
        surface = text[start:end]
        stripped = surface.strip()
        if stripped.casefold() == word.casefold():
            s = start + len(surface) - len(surface.lstrip())
            out.append((i, s, s + len(stripped)))
    return out


TEXTS = [
    "The Bank raised rates; the bank's river BANK flooded.",
    "Banks and banking are not bank-like, said the bank.",
    "Nothing to see here.",
]


@pytest.mark.parametrize("kind", ["minilm", "gpt2"])
def test_occurrences_match_the_tokenizers_pre_tokenisation(minilm_tokenizer, tiny_models, kind):
    if kind == "minilm":
        tokenizer = minilm_tokenizer
    else:
        from transformers import AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(tiny_models[kind])
    for line, text in enumerate(TEXTS):
        tok = tokenize(tokenizer, text)
        found = find_occurrences(tok, {"BANK"}, line=line)
        expected = _expected_by_pretokenizer(tokenizer, text, "bank")
        assert [(o.word_index, o.char_start, o.char_end) for o in found] == expected, (kind, text)
        assert all(o.line == line and text[o.char_start:o.char_end].lower() == "bank" for o in found)
        for o in found:  # the subword span covers exactly the word's characters
            spans = [tok.offsets[i] for i in range(o.token_start, o.token_end)]
            assert min(s for s, e in spans if e > s) <= o.char_start and max(e for _, e in spans) >= o.char_end
    every = find_occurrences(tokenize(tokenizer, TEXTS[0]), None)
    assert [o.word_index for o in every] == list(range(len(every)))
    words = [w for w in re.findall(r"\w+|[^\w\s]", TEXTS[0])]
    if kind == "minilm":  # BERT splits on whitespace and punctuation: the regex gives the same words
        assert [o.word for o in every] == words


def test_word_filter_refuses_blanks():
    with pytest.raises(WorkbenchError, match="empty word"):
        normalise_words(["bank", "  "])
    assert normalise_words(None) is None
    assert normalise_words(["Bank", "BAT"]) == {"bank", "bat"}
