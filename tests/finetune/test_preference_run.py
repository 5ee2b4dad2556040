"""``lm-workbench finetune --task preference``: one recorded DPO run of the tiny GPT-2 on two categories of the
shipped course pairs, checked against a recomputation by hand from the saved model and its base; a second run that
starts from the first one's output folder; bad input."""

from __future__ import annotations

import io
import json
import shlex
from contextlib import redirect_stderr, redirect_stdout

import pytest
import torch

from tests.support.preference_reference import course_subset, dpo_by_hand, pair_logprobs, read_pairs
from workbench.cli.main import main

CATEGORIES = ("capital", "colour")
BETA = 0.1


def _cli(argv: list[str], home) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    previous = torch.get_num_threads()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LM_WORKBENCH_HOME", str(home))
        with redirect_stdout(out), redirect_stderr(err):
            code = main(argv)
    torch.set_num_threads(previous)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def dpo_run(tmp_path_factory, tiny_models):
    """(printed JSON, output folder, home, training file, held-out file) of one recorded LoRA DPO run."""
    root = tmp_path_factory.mktemp("preference")
    train, validation = course_subset(root, CATEGORIES)
    out = root / "out"
    code, printed, err = _cli(
        ["finetune", str(tiny_models["gpt2"]), "--task", "preference", "--train", str(train), "--validation",
         str(validation), "--method", "lora", "--lora-rank", "8", "--lr", "2e-2", "--beta", str(BETA), "--epochs", "4",
         "--batch-size", "16", "--max-length", "64", "--train-setting", "threads=1", "--out", str(out), "--json"],
        root / "home")
    assert code == 0, err
    return json.loads(printed), out, root / "home", train, validation


def test_the_json_has_the_preference_keys_and_the_store_the_curves(dpo_run):
    from workbench.paths import runs_db_path
    from workbench.finetune.spec import FineTuneSpec
    from workbench.cli.parser import build_parser
    from workbench.store import RunStore

    printed, out, home, train, validation = dpo_run
    assert list(printed)[:4] == ["run_id", "trainable_parameters", "total_parameters", "validation"]
    for part in ("train", "validation"):
        assert set(printed[part]) == {"loss", "reward_margin", "preference_accuracy"}
    for part in ("before", "after"):
        assert {"preference_accuracy", "logp_margin"} <= set(printed[part])
        assert set(printed[part]["categories"]) == set(CATEGORIES)
    assert printed["task"] == "preference" and printed["beta"] == BETA and printed["reference"] == "disabled-adapter"
    assert printed["template"]["source"] == "plain" and "plain template" in printed["template"]["note"]
    assert printed["validation_examples"] == len(read_pairs(validation)) == 20
    manifest = json.loads((out / "finetune.json").read_text(encoding="utf-8"))
    assert manifest["task"] == "preference" and manifest["chat_template"]["source"] == "plain"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LM_WORKBENCH_HOME", str(home))
        with RunStore(runs_db_path()) as store:
            run = store.get_run(printed["run_id"])
            names = set(store.metric_names(printed["run_id"]))
    assert {"loss", "reward_margin", "preference_accuracy", "validation_loss", "validation_reward_margin",
            "validation_preference_accuracy", "validation_chosen_preferred"} <= names
    command = shlex.split(run["cli_command"])
    assert command[command.index("--beta") + 1] == "0.1"
    args = build_parser().parse_args(command[1:])
    from workbench.cli.finetune_commands import spec_from_args

    assert spec_from_args(args) == FineTuneSpec.from_dict(run["params"])


def test_the_reported_metrics_are_the_formula_on_the_saved_model_and_its_base(dpo_run, tiny_models):
    from engine.finetune.task_model import build_task_model, load_task_tokenizer
    from workbench.finetune.run import open_output

    printed, out, home, train, validation = dpo_run
    tokenizer = load_task_tokenizer(tiny_models["gpt2"])
    tuned = open_output(out).model.eval()
    base = build_task_model(tiny_models["gpt2"], "preference").eval()
    for role, path in (("validation", validation), ("train", train)):
        pairs = read_pairs(path)
        policy, reference = pair_logprobs(tuned, tokenizer, pairs), pair_logprobs(base, tokenizer, pairs)
        expected = dpo_by_hand(policy, reference, BETA)
        assert printed[role] == pytest.approx(expected, abs=2e-4), role
    pairs = read_pairs(validation)
    for when, model in (("before", base), ("after", tuned)):
        scores = pair_logprobs(model, tokenizer, pairs)
        assert printed[when]["preference_accuracy"] == pytest.approx(sum(c > r for c, r in scores) / len(scores))
        assert printed[when]["logp_margin"] == pytest.approx(sum(c - r for c, r in scores) / len(scores), abs=2e-4)


def test_the_tiny_gpt_learns_to_prefer_the_correct_answers_on_held_out_phrasings(dpo_run):
    printed, *_ = dpo_run
    before, after = printed["before"], printed["after"]
    # measured on this run (tiny GPT-2, 40 steps): see /work/coord/notes/preference.md; thresholds well inside
    assert after["logp_margin"] > before["logp_margin"] + 1.0
    assert after["preference_accuracy"] >= before["preference_accuracy"] + 0.2
    assert printed["validation"]["preference_accuracy"] >= 0.7
    assert printed["validation"]["loss"] < 0.69 and printed["train"]["loss"] < printed["validation"]["loss"] + 0.1


def test_a_run_starts_from_an_earlier_runs_folder_with_its_template(dpo_run, tmp_path, tiny_models):
    printed, out, home, train, validation = dpo_run
    second = tmp_path / "second"
    code, text, err = _cli(
        ["finetune", str(out), "--task", "preference", "--train", str(validation), "--validation", str(validation),
         "--method", "full", "--epochs", "1", "--batch-size", "16", "--max-length", "64",
         "--train-setting", "threads=1", "--out", str(second), "--json"], home)
    assert code == 0, err
    again = json.loads(text)
    assert again["base_model"] == str(second / "start" / "adapter")  # the LoRA run merged into its base
    assert again["reference"] == "frozen-copy" and again["beta"] == 0.1
    assert again["template"]["source"] == "plain" and str(out) in again["template"]["note"]
    # it starts where the first run ended: its "before" is the first run's "after" on the same pairs
    assert again["before"]["logp_margin"] == pytest.approx(printed["after"]["logp_margin"], abs=1e-3)
    assert again["before"]["preference_accuracy"] == printed["after"]["preference_accuracy"]


@pytest.mark.parametrize("case, message", [
    ("beta", "--beta is preference tuning's setting"),
    ("method", "does not support the preference task"),
    ("encoder", "not an encoder-decoder"),
    ("identical", "chosen equals rejected"),
])
def test_bad_preference_input_is_exit_2_one_line(case, message, tmp_path, tiny_models):
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text('{"prompt": "Hi?", "chosen": "Hello.", "rejected": "Hello."}\n', encoding="utf-8")
    good = tmp_path / "good.jsonl"
    good.write_text('{"prompt": "Hi?", "chosen": "Hello.", "rejected": "Go."}\n' * 3, encoding="utf-8")
    model, method, extra, data = str(tiny_models["gpt2"]), "lora", [], good
    if case == "beta":
        extra = ["--beta", "0.2"]
    elif case == "method":
        method = "bitfit"
    elif case == "encoder":
        model = str(tiny_models["t5"])
    else:
        data = pairs
    task = "seq-cls" if case == "beta" else "preference"
    code, _, err = _cli(["finetune", model, "--task", task, "--train", str(data), "--method", method, *extra,
                         "--out", str(tmp_path / "out"), "--json"], tmp_path / "home")
    assert code == 2
    assert err.count("\n") == 1 and message in err, err
