"""Provenance: versions, model fingerprint, data hash."""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import platform
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import save_file

from lm_workbench.runs.provenance import (collect_provenance, fingerprint_model_folder, hash_files,
                                  package_versions)

REPO = Path(__file__).resolve().parents[2]


def make_model(folder, *, shape=(4, 3), fill=0.0, hidden=3):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps({"hidden_size": hidden}))
    save_file({"w": np.full(shape, fill, dtype=np.float32)}, str(folder / "model.safetensors"))
    return folder


def test_fingerprint_reads_config_and_headers_only(tmp_path):
    base = fingerprint_model_folder(make_model(tmp_path / "a"))
    assert len(base) == 64
    assert fingerprint_model_folder(make_model(tmp_path / "a")) == base  # deterministic
    # Different weight values, same layout: same fingerprint (bodies are not read).
    assert fingerprint_model_folder(make_model(tmp_path / "b", fill=1.0)) == base
    assert fingerprint_model_folder(make_model(tmp_path / "c", shape=(4, 4))) != base
    assert fingerprint_model_folder(make_model(tmp_path / "d", hidden=5)) != base
    with pytest.raises(FileNotFoundError):
        fingerprint_model_folder(tmp_path / "missing")


def test_fingerprint_hashes_exactly_the_header_bytes(tmp_path):
    folder = make_model(tmp_path / "m")
    blob = (folder / "model.safetensors").read_bytes()
    (n,) = struct.unpack("<Q", blob[:8])
    expected = hashlib.sha256(b"config.json\0" + (folder / "config.json").read_bytes()
                              + b"\0model.safetensors\0" + blob[:8 + n])
    assert fingerprint_model_folder(folder) == expected.hexdigest()


def test_hash_files_streams_and_separates_files(tmp_path):
    big = tmp_path / "big.bin"
    data = bytes(range(256)) * (10 * 1024 + 7)  # > 2.5 MiB: several 1 MiB chunks
    big.write_bytes(data)
    assert hash_files([big]) == hashlib.sha256(struct.pack("<Q", len(data)) + data).hexdigest()
    a, b, c, d = (tmp_path / n for n in "abcd")
    a.write_text("ab"), b.write_text("c"), c.write_text("a"), d.write_text("bc")
    assert hash_files([a, b]) != hash_files([c, d])  # same concatenation, other split
    assert hash_files([a, b]) != hash_files([b, a])
    assert hash_files([a, b]) == hash_files([str(a), str(b)])


def test_collect_provenance(tmp_path):
    folder = make_model(tmp_path / "m")
    data = tmp_path / "corpus.txt"
    data.write_text("hello\n")
    prov = collect_provenance(device="cpu", dtype="float32", seed=13, model_folder=folder,
                              data_files=[data], plugin=("my-objective", "1.2"),
                              cli_command="lm-workbench pretrain --seed 13")
    v = prov["versions"]
    assert v["python"] == platform.python_version()
    assert v["torch"] == importlib.metadata.version("torch")
    assert set(v) >= {"transformers", "tokenizers", "peft", "numpy", "lm-workbench"}
    assert (prov["device"], prov["dtype"], prov["seed"]) == ("cpu", "float32", 13)
    assert prov["model_fingerprint"] == fingerprint_model_folder(folder)
    assert prov["data_hash"] == hash_files([data])
    assert prov["plugin"] == {"name": "my-objective", "version": "1.2"}
    assert prov["cli_command"].endswith("--seed 13") and prov["platform"]["system"]
    json.dumps(prov)  # storable as is
    bare = collect_provenance(device="cuda", dtype="bfloat16", seed=None)
    assert bare["model_fingerprint"] is None and bare["data_hash"] is None
    assert bare["plugin"] is None


def test_missing_package_is_none():
    assert package_versions(["surely-not-an-installed-package-xyz"])[
        "surely-not-an-installed-package-xyz"] is None


def test_provenance_does_not_import_torch():
    code = ("import sys; from lm_workbench.runs.provenance import collect_provenance as c; "
            "c(device='cpu', dtype='float32', seed=1); "
            "assert 'torch' not in sys.modules and 'transformers' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=str(REPO))
