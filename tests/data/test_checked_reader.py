"""One checked text reader (issue 49, item 1): every reader of a text file refuses a binary file (even one that is
valid UTF-8) and bytes that are not UTF-8 in one wording, with the bad byte's offset and line; every reader
drops a BOM and finds its columns whatever their case; the reported ``ablate --how mean --corpus`` exits 2 with
one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lm_workbench.engine.errors import WorkbenchError


def _table(path):
    from lm_workbench.engine.data.table import read_table

    return read_table(path)


def _embeddings(path):
    from lm_workbench.engine.embeddings.corpus import read_corpus
    from lm_workbench.engine.progress import run_to_completion

    return run_to_completion(read_corpus(path))


def _retrieval(path):
    from lm_workbench.engine.retrieval.corpus import read_corpus

    return read_corpus(path)


def _qrels(path):
    from lm_workbench.engine.retrieval.beir import read_qrels

    return read_qrels(path)


def _instructions(path):
    from lm_workbench.engine.instruct.data import read_instructions

    return read_instructions(path)


def _template(path):
    from lm_workbench.engine.instruct.template import resolve_template

    return resolve_template(None, str(path))


def _conll(path):
    from lm_workbench.engine.data.conll import read_conll

    return read_conll(path)


def _squad(path):
    from lm_workbench.engine.data.squad import read_squad_file

    return read_squad_file(path)


def _pretrain(path):
    from lm_workbench.engine.pretrain.corpus import iter_corpus_lines

    return list(iter_corpus_lines([path]))


def _heads(path):
    from lm_workbench.heads.corpus_file import read_corpus

    return read_corpus(path)


def _course_models(path):
    from lm_workbench.pretrain.course_models import estimated_bytes

    return estimated_bytes(["elmo"], path)  # counts the corpus's words for the ELMo's softmax


def _preset(path):
    from lm_workbench.lectures.library import load_preset_file

    return load_preset_file(path)


def _prompt_set(path):
    from lm_workbench.prompting.files import load_prompt_set

    return load_prompt_set(path)


def _preference(path):
    from lm_workbench.engine.preference.data import read_preference

    return read_preference(path)


def _text_file(path):
    from lm_workbench.engine.text_input import read_text_file

    return read_text_file(path)


QRELS_HEADER = b"query-id\tcorpus-id\tscore\n"
READERS = [  # (what reads it, the file's suffix, the reader, valid lines before the payload)
    ("a typed text's file", ".txt", _text_file, b""),
    ("a TSV table", ".tsv", _table, b""),
    ("a CSV table", ".csv", _table, b""),
    ("a JSONL table", ".jsonl", _table, b""),
    ("the Embeddings corpus", ".txt", _embeddings, b""),
    ("the Retrieval corpus", ".txt", _retrieval, b""),
    ("BEIR qrels", ".tsv", _qrels, QRELS_HEADER),
    ("instructions", ".jsonl", _instructions, b""),
    ("a chat template", ".jinja", _template, b""),
    ("CoNLL", ".conll", _conll, b""),
    ("SQuAD", ".json", _squad, b""),
    ("a pre-training corpus", ".txt", _pretrain, b""),
    ("the Heads corpus", ".txt", _heads, b""),
    ("the course-model corpus", ".txt", _course_models, b""),
    ("a lecture preset", ".json", _preset, b""),
    ("a prompt set", ".json", _prompt_set, b""),
    ("preference pairs", ".jsonl", _preference, b""),
]
ELF = b"\x7fELF\x02\x01\x01\x00" + bytes(8) + b"\x03\x00>\x00\x01\x00\x00\x00\xd0\x6a"  # an executable's start
PAYLOADS = [  # (name, bytes, offset of the first bad byte, its line, what the message says of it)
    ("an executable", ELF, 0, 1, "control byte 0x7f, as in a binary file"),
    ("valid UTF-8 with a NUL", "one passage\nwörd\x00wörd\n".encode("utf-8"), 17, 2, "control byte 0x00"),
    ("Latin-1", "one passage\ncafé au lait\n".encode("latin-1"), 15, 2, "0xe9 is not valid UTF-8 there"),
]


@pytest.mark.parametrize("payload", PAYLOADS, ids=[p[0] for p in PAYLOADS])
@pytest.mark.parametrize("reader", READERS, ids=[r[0] for r in READERS])
def test_every_reader_refuses_what_is_not_text_in_one_wording(tmp_path, reader, payload):
    _what, suffix, read, head = reader
    _name, data, offset, line, said = payload
    path = tmp_path / f"bin{suffix}"
    path.write_bytes(head + data)
    with pytest.raises(WorkbenchError) as info:
        read(path)
    message = str(info.value)
    lines_before = head.count(b"\n")
    where = f"byte {len(head) + offset}, line {lines_before + line}: {said}"
    assert f"bin{suffix} is not UTF-8 text ({where}" in message and "\n" not in message


def test_the_reported_ablation_corpus_exits_2_with_one_line(tmp_path, capsys):
    from lm_workbench.cli.main import main

    path = tmp_path / "bin.txt"
    path.write_bytes((ELF * 200)[:4096])  # `head -c 4096 /bin/ls > bin.txt`
    code = main(["ablate", "minilm", "--text", "The cat sat on the", "--target", "Ġthe",
                 "--all-heads", "--how", "mean", "--corpus", str(path)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert err.startswith("lm-workbench: error: ") and "bin.txt is not UTF-8 text (byte 0, line 1" in err


BOM = "\ufeff"
TSV = BOM + "Sentence\tLABEL\nThe room was clean.\tpositive\nThe room was dirty.\tnegative\n"


def _read_classification(path):
    from lm_workbench.engine.data.tasks import read_classification

    return [e.text for e in read_classification(path).examples]


def _read_sentence_task(path):
    from lm_workbench.engine.probing.readers import read_sentence_task

    return read_sentence_task(path).texts


def _read_embeddings_table(path):
    return _embeddings(path).lines


def _read_retrieval_table(path):
    return _retrieval(path).texts


def _read_sentence_pairs(path):
    from lm_workbench.engine.sentence.data import read_sentence_data

    return [e.anchor for e in read_sentence_data(path)]


BOM_READERS = [  # (what reads it, file name, its text with a BOM and names in other cases, reader, first text)
    ("classification", "c.tsv", TSV, _read_classification, "The room was clean."),
    ("probing sentences", "p.tsv", TSV, _read_sentence_task, "The room was clean."),
    ("Embeddings table", "e.tsv", TSV, _read_embeddings_table, "The room was clean."),
    ("Retrieval table", "r.tsv", BOM + "TEXT\nThe room was clean.\n", _read_retrieval_table, "The room was clean."),
    ("Retrieval text", "r.txt", BOM + "The room was clean.\n", _read_retrieval_table, "The room was clean."),
    ("Embeddings text", "e.txt", BOM + "The room was clean.\n", _read_embeddings_table, "The room was clean."),
    ("Heads corpus", "h.txt", BOM + "The room was clean.\n", _heads, "The room was clean."),
    ("sentence pairs", "s.tsv", BOM + "Anchor\tPOSITIVE\nhow is tea made\tTea is made from leaves.\n",
     _read_sentence_pairs, "how is tea made"),
    ("preference pairs", "d.tsv", BOM + "Prompt\tChosen\tREJECTED\nSky?\tBlue.\tGreen.\n",
     lambda p: [x.prompt for x in _preference(p)], "Sky?"),
    ("instructions", "i.jsonl", BOM + json.dumps({"instruction": "Say hi.", "output": "Hi."}) + "\n",
     lambda p: [x.messages[0][1] for x in _instructions(p)], "Say hi."),
    ("qrels", "q.tsv", BOM + "Query-ID\tcorpus-id\tScore\nq1\td1\t1\n", lambda p: [r[1] for r in _qrels(p)[0]], "q1"),
    ("CoNLL", "w.conll", BOM + "The DT\nroom NN\n", lambda p: _conll(p).sentences, ["The", "room"]),
]


@pytest.mark.parametrize("what, name, text, read, first", BOM_READERS, ids=[r[0] for r in BOM_READERS])
def test_every_reader_drops_a_bom_and_matches_names_whatever_their_case(tmp_path, what, name, text, read, first):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    assert read(path)[0] == first


def test_peek_header_reads_a_quoted_header_and_skips_a_binary_file(tmp_path):
    from lm_workbench.engine.data.table import peek_header

    quoted = tmp_path / "q.tsv"
    quoted.write_text(BOM + '"sentence"\t"label"\n"a"\t"1"\n', encoding="utf-8")
    assert peek_header(quoted) == ["sentence", "label"]
    binary = tmp_path / "b.tsv"
    binary.write_bytes(ELF)
    assert peek_header(binary) == []


def test_pandas_index_column_is_named(tmp_path):
    pd = pytest.importorskip("pandas")
    path = Path(tmp_path) / "i.tsv"
    pd.DataFrame({"sentence": ["a", "b"]}).to_csv(path, sep="\t")
    assert _table(path).header == ["index", "sentence"]
