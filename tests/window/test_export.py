"""CSV/NPY export, clipboard TSV and file-name suggestions."""

from __future__ import annotations

import csv
import re
import time

import numpy as np
import pytest

from lm_workbench.export import export_csv, export_npy, suggest_filename, table_to_tsv


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.reader(fh))


def test_csv_from_dicts_unions_keys(tmp_path):
    out = export_csv(tmp_path / "t.csv", [{"token": "a", "score": 0.5}, {"token": "b", "rank": 2}])
    assert read_csv(out) == [["token", "score", "rank"], ["a", "0.5", ""], ["b", "", "2"]]


def test_csv_from_header_rows_quotes_and_numpy(tmp_path):
    rows = [["x, y", np.float32(1.5)], ['say "hi"\nnow', np.int64(3)], ["ünï", None]]
    out = export_csv(tmp_path / "sub" / "t.csv", (["text", "value"], rows))
    assert read_csv(out) == [["text", "value"], ["x, y", "1.5"], ['say "hi"\nnow', "3"],
                             ["ünï", ""]]
    assert [p.name for p in out.parent.iterdir()] == ["t.csv"]


def test_npy_round_trip(tmp_path):
    a = np.arange(12, dtype=np.float16).reshape(3, 4)
    out = export_npy(tmp_path / "emb", a)
    assert out.name == "emb.npy"
    b = np.load(out)
    assert b.dtype == np.float16 and np.array_equal(a, b)
    with pytest.raises(TypeError):
        export_npy(tmp_path / "bad.npy", np.array([{"a": 1}], dtype=object))


def test_tsv_for_clipboard():
    text = table_to_tsv(["a", "b"], [[1, "x\ty"], [np.float64(2.5), "line\nbreak"]])
    assert text == "a\tb\n1\tx y\n2.5\tline break\n"


def test_suggest_filename_is_safe():
    when = time.mktime((2025, 1, 2, 3, 4, 5, 0, 0, -1))
    name = suggest_filename("attention / heads", "google-bert/bert-base-uncased", ".csv",
                            when=when)
    assert name == "attention-heads_bert-base-uncased_20250102-030405.csv"
    odd = suggest_filename("../../etc", "C:\\models\\my model:v2", "p*ng")
    assert re.fullmatch(r"[A-Za-z0-9._-]+", odd) and odd.endswith(".png")
    assert not odd.startswith(".") and "my-model-v2" in odd
