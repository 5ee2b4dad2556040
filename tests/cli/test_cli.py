"""The headless CLI: contracts (keys, arrays) and one-line errors with exit code 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from tests.support.reference import max_abs, plain_forward
from tests.support.huge_model import sparse_huge_model
from lm_workbench.cli.main import main

INFO_KEYS = {"family", "layers", "heads", "hidden_size", "parameters", "vocab_size", "has_mlm_head", "has_lm_head"}


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    "kind, family, mlm, lm",
    [("minilm", "encoder", False, False), ("bert", "encoder", True, False), ("gpt2", "decoder", False, True),
     ("llama", "decoder", False, True), ("bart", "encoder-decoder", False, True),
     ("t5", "encoder-decoder", False, True)],
)
def test_info_json(capsys, tiny_models, kind, family, mlm, lm):
    spec = kind if kind == "minilm" else str(tiny_models[kind])
    code, out, err = run_cli(capsys, "info", spec, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert INFO_KEYS <= set(data)
    assert (data["family"], data["has_mlm_head"], data["has_lm_head"]) == (family, mlm, lm)
    import transformers

    config = transformers.AutoConfig.from_pretrained(data["folder"])
    assert data["vocab_size"] == config.vocab_size
    if kind == "minilm":
        assert (data["layers"], data["heads"], data["hidden_size"]) == (6, 12, 384)
        assert data["parameters"] == 22_713_216  # all-MiniLM-L6-v2: BertModel with its pooler
    else:
        assert (data["layers"], data["heads"], data["hidden_size"]) == (2, 4, 32)


def test_encode_npz_matches_plain_transformers(capsys, tmp_path):
    out_file = tmp_path / "enc.npz"
    text, pair = "The bank raised rates.", "We sat on the river bank."
    code, out, err = run_cli(capsys, "encode", "minilm", "--text", text, "--pair", pair, "--out", str(out_file))
    assert code == 0, err
    with np.load(out_file, allow_pickle=False) as npz:
        data = {k: npz[k] for k in npz.files}
    ref = plain_forward(_minilm_folder(), text, pair)
    assert data["tokens"].dtype.kind == "U"
    assert list(data["tokens"])[:3] == ["[CLS]", "the", "bank"]
    assert data["hidden_states"].dtype == np.float32 and data["attentions"].dtype == np.float32
    assert data["hidden_states"].shape == (7, len(data["tokens"]), 384)
    assert data["attentions"].shape == (6, 12, len(data["tokens"]), len(data["tokens"]))
    assert max_abs(data["hidden_states"], ref["hidden_states"]) <= 1e-5
    assert max_abs(data["attentions"], ref["attentions"]) <= 1e-5
    # offsets point back into the text; word ids group subwords; -1 marks specials
    s, e = data["offsets"][2]
    assert text[s:e] == "bank"
    assert data["word_ids"][0] == -1 and data["segment_ids"][-2] == 1


def _minilm_folder():
    from lm_workbench.engine.models.default import default_model_folder

    return default_model_folder()


def test_encode_encoder_decoder_arrays(capsys, tiny_models, tmp_path):
    out_file = tmp_path / "t5.npz"
    code, _, err = run_cli(capsys, "encode", str(tiny_models["t5"]), "--text", "translate this sentence",
                           "--target", "a target", "--out", str(out_file))
    assert code == 0, err
    with np.load(out_file, allow_pickle=False) as npz:
        assert {"decoder_tokens", "decoder_hidden_states", "decoder_attentions", "cross_attentions"} <= set(npz.files)
        n_enc, n_dec = len(npz["tokens"]), len(npz["decoder_tokens"])
        assert npz["cross_attentions"].shape == (2, 4, n_dec, n_enc)
        assert npz["decoder_hidden_states"].shape == (3, n_dec, 32)


def test_encode_reports_truncation(capsys, tiny_models, tmp_path):
    code, out, err = run_cli(capsys, "encode", str(tiny_models["bert"]), "--text", "word " * 500,
                             "--out", str(tmp_path / "long.npz"), "--json")
    assert code == 0
    assert json.loads(out)["truncated"] is True
    assert "cut off" in err


def _one_line_error(code, err, needle):
    assert code == 2
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("lm-workbench: error:")
    assert needle in lines[0]
    assert "Traceback" not in err


def test_bad_inputs_exit_2_with_one_line(capsys, tiny_models, tmp_path):
    out = str(tmp_path / "x.npz")
    _one_line_error(*run_cli(capsys, "encode", "minilm", "--text", "  ", "--out", out)[::2], "empty")
    _one_line_error(*run_cli(capsys, "info", str(tmp_path / "missing"))[::2], "does not exist")
    (tmp_path / "noconfig").mkdir()
    _one_line_error(*run_cli(capsys, "info", str(tmp_path / "noconfig"))[::2], "no config.json")
    import shutil

    broken = shutil.copytree(tiny_models["bert"], tmp_path / "broken")
    (broken / "model.safetensors").write_bytes(b"junk")
    _one_line_error(*run_cli(capsys, "info", str(broken))[::2], "corrupt weights")
    latin = tmp_path / "latin.txt"
    latin.write_bytes("naïve".encode("latin-1"))
    _one_line_error(*run_cli(capsys, "encode", "minilm", "--text-file", str(latin), "--out", out)[::2], "not UTF-8")
    _one_line_error(*run_cli(capsys, "info", "nobody/uncached-model")[::2], "not in the cache")
    sparse_huge_model(tmp_path / "huge")
    _one_line_error(*run_cli(capsys, "info", str(tmp_path / "huge"))[::2], "free")
    _one_line_error(*run_cli(capsys, "encode", "minilm", "--out", out)[::2], "required")
    _one_line_error(*run_cli(capsys, "encode", "minilm", "--text", "hi", "--out", str(tmp_path / "x.txt"))[::2], ".npz")
    _one_line_error(*run_cli(capsys, "frobnicate")[::2], "invalid choice")


def _subprocess(*args):
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    return subprocess.run([sys.executable, "-m", "lm_workbench", *args], capture_output=True, text=True, env=env,
                          timeout=120)


@pytest.mark.timeout(180)
def test_subprocess_smoke_info_and_encode(tmp_path, tiny_models):
    info = _subprocess("info", "minilm", "--json")
    assert info.returncode == 0, info.stderr
    assert json.loads(info.stdout)["family"] == "encoder"
    enc = _subprocess("encode", str(tiny_models["gpt2"]), "--text", "Hello there", "--out", str(tmp_path / "g.npz"))
    assert enc.returncode == 0, enc.stderr
    assert np.load(tmp_path / "g.npz")["attentions"].shape[:2] == (2, 4)
    bad = _subprocess("info", str(tmp_path / "nowhere"))
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr
    version = _subprocess("--version")
    assert version.returncode == 0 and version.stdout.startswith("lm-workbench ")
