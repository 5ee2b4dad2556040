"""``lm-workbench prompt-eval`` and ``generate`` on tiny models: JSON keys, the run recorded, bad input."""

from __future__ import annotations

import json
import shlex

import pytest

from lm_workbench.cli.main import main
from lm_workbench.cli.parser import build_parser

ROWS = [("the story is good", "pos"), ("the film is bad", "neg"), ("good and warm", "pos"),
        ("dull and bad", "neg"), ("a good film", "pos"), ("a bad story", "neg")]


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def reviews(tmp_path_factory):
    folder = tmp_path_factory.mktemp("prompt-cli")
    path = folder / "reviews.tsv"
    path.write_text("sentence\tlabel\n" + "\n".join(f"{t}\t{label}" for t, label in ROWS) + "\n", encoding="utf-8")
    long = folder / "long.tsv"
    long.write_text("sentence\tlabel\n" + "\n".join(f"{'word ' * 70}\t{label}" for _, label in ROWS) + "\n",
                    encoding="utf-8")
    neutral = folder / "neutral.tsv"
    neutral.write_text(path.read_text(encoding="utf-8") + "so so\tneutral\n", encoding="utf-8")
    return {"ok": path, "long": long, "neutral": neutral}


def test_prompt_eval_json_and_the_run_it_records(capsys, fresh_home, tiny_models, reviews):
    model = str(tiny_models["bert"])
    code, out, err = run_cli(capsys, "prompt-eval", model, "--template", "[x] it [z] .", "--verbalizer",
                             "pos=is,the;neg=was", "--data", str(reviews["ok"]), "--k-shot", "2", "--seed", "3",
                             "--calibrate", "--threads", "1", "--json")
    assert code == 0, err
    report = json.loads(out)
    for key in ("labels", "accuracy", "macro_f1", "confusion_matrix", "calibrated_accuracy", "calibrated_macro_f1",
                "p_cf", "prompts", "examples", "demonstrations", "small_model", "run_id"):
        assert key in report, key
    assert report["labels"] == ["pos", "neg"] and report["examples"] == 4 and len(report["demonstrations"]) == 2
    assert sum(map(sum, report["confusion_matrix"])) == 4 and sum(report["p_cf"]) == pytest.approx(1)
    assert "near chance" in report["small_model"]
    from lm_workbench.paths import runs_db_path
    from lm_workbench.runs.kinds import run_kind
    from lm_workbench.store import RunStore

    with RunStore(runs_db_path()) as store:
        run = store.get_run(report["run_id"])
        assert run["kind"] == "prompt-eval" and run["status"] == "finished"
        assert [r["value"] for r in store.metrics(report["run_id"], "accuracy")] == [report["accuracy"]]
        assert [a["name"] for a in store.artifacts(report["run_id"])] == ["result"]
        command = run_kind("prompt-eval").cli_command(run["params"])
    assert command == run["cli_command"]
    again = build_parser().parse_args(shlex.split(command)[1:])
    assert (again.template, again.verbalizer, again.k_shot, again.seed, again.calibrate) == (
        ["[x] it [z] ."], ["pos=is,the;neg=was"], 2, 3, True)


def test_generate_json(capsys, tiny_models):
    model = str(tiny_models["gpt2"])
    code, out, err = run_cli(capsys, "generate", model, "--text", "The value", "--max-new-tokens", "4",
                             "--threads", "1", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert len(report["token_ids"]) == len(report["probs"]) == len(report["tokens"]) == 4
    assert report["tokens"][0]["id"] == report["token_ids"][0] and isinstance(report["text"], str)
    code, out, err = run_cli(capsys, "generate", model, "--text", "The value", "--max-new-tokens", "4",
                             "--temperature", "0.7", "--top-k", "5", "--top-p", "0.9", "--seed", "2", "--json")
    assert code == 0 and all(0 < p <= 1 for p in json.loads(out)["probs"])


@pytest.mark.parametrize("args, message", [
    (["--template", "[x] it was good", "--verbalizer", "pos=is;neg=was"], "no answer slot"),
    (["--template", "[x] it [z] .", "--verbalizer", ""], "the verbalizer is empty"),
    (["--template", "[x] it [z] .", "--verbalizer", "pos=is;neg=was", "--data", "NEUTRAL"],
     "label 'neutral' in .* has no answer words"),
    (["--template", "[x] it [z] .", "--verbalizer", "pos=is;neg=was", "--data", "LONG", "--k-shot", "2"],
     r"the model reads 64; all demonstrations were dropped \(1, 2\)"),
    (["--template", "[x] [y] [z]", "--verbalizer", "pos=is;neg=was"], r"unknown slot \[y\]"),
])
def test_prompt_eval_bad_input_is_one_line_and_exit_2(capsys, fresh_home, tiny_models, reviews, args, message):
    import re

    if "--data" not in args:
        args = args + ["--data", "OK"]
    args = [str(reviews[a.lower()]) if a in ("OK", "LONG", "NEUTRAL") else a for a in args]
    code, out, err = run_cli(capsys, "prompt-eval", str(tiny_models["bert"]), *args, "--json")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and re.search(message, err), err


def test_generate_bad_input_is_one_line_and_exit_2(capsys, tiny_models):
    code, _, err = run_cli(capsys, "generate", str(tiny_models["gpt2"]), "--text", "x", "--greedy",
                           "--temperature", "0.5", "--json")
    assert code == 2 and err.count("\n") == 1 and "choose greedy decoding or sampling" in err
    code, _, err = run_cli(capsys, "generate", str(tiny_models["bert"]), "--text", "x", "--json")
    assert code == 2 and err.count("\n") == 1 and "generation needs a decoder" in err


def test_the_long_run_target_repeats_a_stored_evaluation(fresh_home, tiny_models, reviews):
    """The runs browser's "run again": the stored params go back through ``prompt_eval_lane_job``."""
    import threading

    from lm_workbench.runs.run_context import RunContext
    from lm_workbench.paths import runs_db_path
    from lm_workbench.prompting.runs import prompt_eval_lane_job
    from lm_workbench.prompting.spec import PromptEvalSpec
    from lm_workbench.runs.kinds import run_kind
    from lm_workbench.store import RunStore

    params = PromptEvalSpec(str(tiny_models["bert"]), ["[x] it [z] ."], ["pos=is;neg=was"], str(reviews["ok"]),
                            limit=3).checked().to_dict()
    assert run_kind("prompt-eval").target == "lm_workbench.prompting.runs:prompt_eval_lane_job"
    with RunStore(runs_db_path()) as store:
        run_id = store.create_run("prompt-eval", params=params)
        result = prompt_eval_lane_job(RunContext(run_id, store, threading.Event()), **dict(params))
        assert result["examples"] == 3 and result["prompts"][0]["template"] == "[x] it [z] ."
        assert [r["value"] for r in store.metrics(run_id, "accuracy")] == [result["prompts"][0]["raw"]["accuracy"]]
