"""``lm-workbench corrupt``: what an objective does to a text, as JSON; rates over samples; one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lm_workbench.cli.main import main

TEXT = "Thank you for inviting me to your party last week. It was fun."


def corrupt(capsys, *argv):
    code = main(["corrupt", *argv])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code == 0 and "--json" in argv else out), err


def test_mlm_json_contract(capsys, tiny_models):
    code, data, err = corrupt(capsys, "--objective", "mlm", "--tokenizer", str(tiny_models["bert"]),
                              "--text", TEXT, "--seed", "3", "--json")
    assert code == 0, err
    assert {"tokens", "input_tokens", "input_ids", "labels", "kinds"} <= set(data)
    assert data["tokens"][0] == "[CLS]" and data["tokens"][-1] == "[SEP]"
    n = len(data["tokens"])
    assert len(data["input_tokens"]) == len(data["input_ids"]) == len(data["labels"]) == len(data["kinds"]) == n
    for token, inp, label, kind in zip(data["tokens"], data["input_tokens"], data["labels"], data["kinds"]):
        assert (label == -100) == (kind == "unchanged")
        assert kind != "masked" or inp == "[MASK]"
        assert kind not in ("unchanged", "kept") or inp == token
    assert sum(k != "unchanged" for k in data["kinds"]) == round(0.15 * (n - 2))
    again = corrupt(capsys, "--objective", "mlm", "--tokenizer", str(tiny_models["bert"]), "--text", TEXT,
                    "--seed", "3", "--json")[1]
    assert again == data
    others = [corrupt(capsys, "--objective", "mlm", "--tokenizer", str(tiny_models["bert"]), "--text", TEXT,
                      "--seed", str(s), "--json")[1]["input_ids"] for s in range(4, 8)]
    assert any(o != data["input_ids"] for o in others)


def test_mlm_rates_over_samples(capsys, tiny_models):
    text = "the cat sat on the mat and the dog sat on the log with a hat on the end of it"
    code, data, err = corrupt(capsys, "--objective", "mlm", "--tokenizer", str(tiny_models["bert"]),
                              "--text", text, "--seed", "0", "--samples", "3000", "--json")
    assert code == 0, err
    eligible = len(data["tokens"]) - 2
    rates = data["rates"]
    assert data["samples"] == 3000
    assert rates["selected"] == pytest.approx(round(0.15 * eligible) / eligible)
    assert rates["mask"] == pytest.approx(0.8, abs=0.03)
    assert rates["random"] == pytest.approx(0.1, abs=0.02) and rates["keep"] == pytest.approx(0.1, abs=0.02)
    assert rates["mask"] + rates["random"] + rates["keep"] == pytest.approx(1.0)


@pytest.mark.parametrize("objective, kind, extra", [
    ("clm", "gpt2", []), ("spanbert", "bert", []), ("bart", "bart", ["--set", "document_rotation=true"]),
    ("t5-span", "t5", []),
])
def test_every_built_in_runs(capsys, tiny_models, objective, kind, extra):
    code, data, err = corrupt(capsys, "--objective", objective, "--tokenizer", str(tiny_models[kind]),
                              "--text", TEXT, "--samples", "20", "--json", *extra)
    assert code == 0, err
    assert data["objective"] == objective and len(data["kinds"]) == len(data["input_ids"])
    if objective == "t5-span":
        assert "<extra_id_0>" in data["input_tokens"] and data["label_tokens"][0] == "<extra_id_0>"
    if objective == "bart":
        assert data["labels"] == data["original_ids"] and data["config"]["document_rotation"] is True
        assert data["rates"]["selected"] == pytest.approx(0.3, abs=0.05)


def test_text_output(capsys, tiny_models):
    code = main(["corrupt", "--objective", "t5-span", "--tokenizer", str(tiny_models["t5"]), "--text", TEXT])
    out = capsys.readouterr().out
    assert code == 0 and "sentinel" in out and "target: <extra_id_0>" in out


@pytest.mark.parametrize("argv, message", [
    (["--objective", "nope", "--tokenizer", "{bert}", "--text", TEXT], "unknown objective 'nope'"),
    (["--objective", "mlm", "--tokenizer", "{gpt2}", "--text", TEXT], "mlm needs a mask token"),
    (["--objective", "mlm", "--tokenizer", "{bert}", "--text", "   "], "the text is empty"),
    (["--objective", "mlm", "--tokenizer", "{bert}", "--text", TEXT, "--set", "mask_rate=2"],
     "mlm: mask_rate must be at most 1"),
    (["--objective", "mlm", "--tokenizer", "{bert}", "--text", TEXT, "--set", "colour=red"], "unknown setting 'colour'"),
    (["--objective", "mlm", "--tokenizer", "{bert}", "--text", TEXT, "--set", "mask_rate"], "key=value"),
    (["--objective", "mlm", "--tokenizer", "{bert}", "--text", TEXT, "--samples", "0"], "--samples must be at least 1"),
    (["--objective", "t5-span", "--tokenizer", "{bert}", "--text", TEXT], "sentinel tokens"),
    (["--objective", "mlm", "--tokenizer", "/no/such/model", "--text", TEXT], "does not exist"),
])
def test_bad_input_exits_2_with_one_line(capsys, tiny_models, argv, message):
    argv = [a.format(bert=tiny_models["bert"], gpt2=tiny_models["gpt2"]) for a in argv]
    code, out, err = corrupt(capsys, *argv, "--json")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def test_console_script_exit_code(tiny_models):
    script = Path(sys.executable).with_name("lm-workbench")
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    result = subprocess.run([str(script), "corrupt", "--objective", "bart", "--tokenizer", str(tiny_models["gpt2"]),
                             "--text", TEXT], capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.strip().count("\n") == 0 and "bart needs a mask token" in result.stderr
