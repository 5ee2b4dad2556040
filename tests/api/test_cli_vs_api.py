"""Every command both ways in-process (issue 44.2): ``lm-workbench ... --json`` and the Python API give the same
payload (``Result.to_dict()``); the API's ``save`` writes the file the CLI writes; a refused argument is the CLI's
line as a ``WorkbenchError``. Tiny random models (``tiny_models``)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import lm_workbench as lw
from lm_workbench.cli.main import main

TEXT = "the name of the cat is"
# (family, command, CLI arguments after the model, API method, API arguments)
ONE_MODEL = [
    ("bert", "info", [], "info", {}),
    ("bart", "info", [], "info", {}),
    ("bert", "attention", ["--text", TEXT, "--layer", "1", "--head", "0", "--hide-special"], "attention",
     {"text": TEXT, "layer": 1, "head": 0, "hide_special": True}),
    ("bart", "attention", ["--text", TEXT, "--target", "a cat", "--kind", "cross", "--layer", "0", "--head", "1"],
     "attention", {"text": TEXT, "target": "a cat", "kind": "cross", "layer": 0, "head": 1}),
    ("bert", "fill-mask", ["--text", "the [MASK] of the cat", "--k", "3"], "fill_mask",
     {"text": "the [MASK] of the cat", "k": 3}),
    ("gpt2", "next-token", ["--text", TEXT], "next_token", {"text": TEXT}),
    ("gpt2", "lens", ["--text", TEXT, "--k", "2"], "lens", {"text": TEXT, "k": 2}),
    ("gpt2", "dla", ["--text", TEXT, "--target", " the"], "dla", {"text": TEXT, "target": " the"}),
    ("gpt2", "attribute", ["--text", TEXT], "attribute", {"text": TEXT}),
    ("gpt2", "ablate", ["--text", TEXT, "--target", " the", "--heads", "0.0,1.1"], "ablate",
     {"text": TEXT, "target": " the", "heads": "0.0,1.1"}),
    ("gpt2", "generate", ["--text", TEXT, "--greedy", "--max-new-tokens", "3"], "generate",
     {"text": TEXT, "greedy": True, "max_new_tokens": 3}),
    ("gpt2", "patch", ["--clean", "the name of the cat", "--corrupt", "the name of the dog", "--target", " is"],
     "patch", {"clean": "the name of the cat", "corrupt": "the name of the dog", "target": " is"}),
    # the options that once ran another path of their command: attribution patching, a chat template
    ("gpt2", "patch", ["--clean", "the name of the cat", "--corrupt", "the name of the dog", "--target", " is",
                       "--approx", "--compare-exact"], "patch",
     {"clean": "the name of the cat", "corrupt": "the name of the dog", "target": " is", "approx": True,
      "compare_exact": True}),
    ("gpt2", "generate", ["--text", TEXT, "--chat", "--template", "plain", "--max-new-tokens", "3"], "generate",
     {"text": TEXT, "chat": True, "template": "plain", "max_new_tokens": 3}),
]


@pytest.fixture(scope="module")
def models(tiny_models):
    return {family: lw.load(str(tiny_models[family]), offline=True) for family in ("bert", "gpt2", "bart")}


def _cli(capsys, *argv):
    code = main([*argv, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize("family, command, argv, method, kwargs", ONE_MODEL,
                         ids=[f"{row[1]}-{row[0]}" for row in ONE_MODEL])
def test_one_model_commands_give_the_clis_json(capsys, tiny_models, models, family, command, argv, method, kwargs):
    expected = _cli(capsys, command, str(tiny_models[family]), "--offline", *argv)
    result = getattr(models[family], method)(**kwargs)
    assert result.to_dict() == expected
    assert result.command == command


def test_encode_saves_the_file_the_cli_writes(capsys, tiny_models, models, tmp_path):
    cli_out, api_out = tmp_path / "cli.npz", tmp_path / "api.npz"
    summary = _cli(capsys, "encode", str(tiny_models["gpt2"]), "--offline", "--text", TEXT, "--out", str(cli_out))
    result = models["gpt2"].encode(TEXT)
    assert result.to_dict() == summary | {"out": None}
    result.save(api_out)
    cli, api = np.load(cli_out), np.load(api_out)
    assert sorted(cli.files) == sorted(api.files)
    for name in cli.files:
        np.testing.assert_array_equal(cli[name], api[name])
    assert result.arrays["hidden_states"].shape == tuple(summary["arrays"]["hidden_states"])


def test_project_saves_the_csv_the_cli_writes(capsys, tiny_models, models, tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("the cat sat on the mat\nthe dog sat on the log\na cat and a dog\nthe cat is here\n",
                      encoding="utf-8")
    cli_out = tmp_path / "cli.csv"
    summary = _cli(capsys, "project", str(tiny_models["bert"]), "--offline", "--corpus", str(corpus), "--layer", "1",
                   "--word", "cat", "--word", "dog", "--out", str(cli_out))
    result = models["bert"].project(corpus=str(corpus), layer="1", word=["cat", "dog"])
    assert result.to_dict() == summary | {"out": None} and summary["points"] == 5
    assert result.save(tmp_path / "api.csv").read_bytes() == cli_out.read_bytes()


def test_other_commands_give_the_clis_json(capsys, fresh_home):
    assert lw.plugins().to_dict() == _cli(capsys, "plugins", "list")
    assert lw.runs().to_dict() == _cli(capsys, "runs", "list")
    assert lw.presets().to_dict() == _cli(capsys, "presets", "list")
    assert lw.study_list().to_dict() == _cli(capsys, "study", "list")
    guide = lw.guide_list().to_dict()
    assert guide == _cli(capsys, "guide", "list") and len(guide["pages"]) >= 24
    assert lw.guide_show("attention-not-explanation").to_dict() == _cli(capsys, "guide", "show",
                                                                        "attention-not-explanation")


def test_results_as_tables_and_figures(models):
    attention = models["bert"].attention(TEXT, layer=0, head=0)
    weights = attention.weights
    assert weights.shape == (len(attention.tokens), len(attention.tokens))
    np.testing.assert_allclose(weights.sum(axis=1), 1.0, atol=1e-5)  # softmax rows
    frame = attention.to_pandas()
    assert frame.shape == weights.shape and np.allclose(frame.to_numpy(), weights)
    png = attention._repr_png_()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    figure = attention.plot()
    assert figure.axes[0].get_title() == "encoder attention, layer 0, head 0"
    nxt = models["gpt2"].next_token(TEXT, k=4)
    table = nxt.to_pandas()
    assert list(table["token"]) == [c["token"] for c in nxt.candidates] and len(table) == 4


def test_refusals_are_the_clis_lines(capsys, tiny_models, models):
    with pytest.raises(lw.ArgumentError, match="invalid choice: 'sideways'"):
        models["bert"].attention(TEXT, layer=0, head=0, kind="sideways")
    code = main(["attention", str(tiny_models["bert"]), "--text", TEXT, "--layer", "0", "--head", "0",
                 "--kind", "cross"])
    line = capsys.readouterr().err.strip().removeprefix("lm-workbench: error: ")
    assert code == 2
    with pytest.raises(lw.WorkbenchError) as raised:
        models["bert"].attention(TEXT, layer=0, head=0, kind="cross")
    assert " ".join(str(raised.value).split()) == line.replace(str(tiny_models["bert"]), models["bert"].spec)
    with pytest.raises(lw.WorkbenchError, match="does not exist"):
        lw.load(str(tiny_models["bert"]) + "-missing", offline=True)
    with pytest.raises(lw.ArgumentError, match="disagree"):  # dtype is precision's alias
        lw.load(str(tiny_models["bert"]), dtype="float16", precision="float32")
    with pytest.raises(lw.ArgumentError, match="invalid choice: 'float8'"):
        lw.load(str(tiny_models["bert"]), dtype="torch.float8")
