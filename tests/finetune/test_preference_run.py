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
from lm_workbench.cli.main import main

CATEGORIES = ("capital", "colour")
BETA = 0.1


def _cli(argv: list[str], home) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    previous = torch.get_num_threads()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LM_WORKBENCH_HOME", str(home))
        with redirect_stdout(out), redirect_stderr(err):
            code = main(argv)
    torch.set_num_threads(previous)  # a run's threads setting is process-wide
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(autouse=True)
def one_thread():
    """One torch thread (on a shared 2-core machine two are many times slower), given back afterwards."""
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)


@pytest.fixture(scope="module")
def dpo_run(tmp_path_factory, tiny_models):
    """(printed JSON, output folder, home, training file, held-out file) of one recorded DPO run (full)."""
    root = tmp_path_factory.mktemp("preference")
    train, validation = course_subset(root, CATEGORIES)
    out = root / "out"
    code, printed, err = _cli(
        ["finetune", str(tiny_models["gpt2"]), "--task", "preference", "--train", str(train), "--validation",
         str(validation), "--method", "full", "--lr", "8e-3", "--beta", str(BETA), "--epochs", "2",
         "--batch-size", "16", "--max-length", "64", "--train-setting", "threads=1", "--out", str(out), "--json"],
        root / "home")
    assert code == 0, err
    return json.loads(printed), out, root / "home", train, validation


def test_the_json_has_the_preference_keys_and_the_store_the_curves(dpo_run):
    from lm_workbench.paths import runs_db_path
    from lm_workbench.finetune.spec import FineTuneSpec
    from lm_workbench.cli.parser import build_parser
    from lm_workbench.store import RunStore

    printed, out, home, train, validation = dpo_run
    assert list(printed)[:4] == ["run_id", "trainable_parameters", "total_parameters", "validation"]
    for part in ("train", "validation"):
        assert set(printed[part]) == {"loss", "reward_margin", "preference_accuracy"}
    for part in ("before", "after"):
        assert {"preference_accuracy", "logp_margin"} <= set(printed[part])
        assert set(printed[part]["categories"]) == set(CATEGORIES)
    assert printed["task"] == "preference" and printed["beta"] == BETA and printed["reference"] == "frozen-copy"
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
    from lm_workbench.cli.finetune_commands import spec_from_args

    assert spec_from_args(args) == FineTuneSpec.from_dict(run["params"])


def test_the_reported_metrics_are_the_formula_on_the_saved_model_and_its_base(dpo_run, tiny_models):
    from lm_workbench.engine.finetune.task_model import build_task_model, load_task_tokenizer
    from lm_workbench.engine.instruct.template import resolve_template
    from lm_workbench.engine.preference.data import PreferencePair
    from lm_workbench.engine.preference.encoding import collate_pairs, encode_pairs
    from lm_workbench.engine.preference.logprobs import model_logprobs
    from lm_workbench.finetune.train import open_output

    printed, out, home, train, validation = dpo_run
    tokenizer = load_task_tokenizer(tiny_models["gpt2"])
    tuned = open_output(out).model.eval()
    base = build_task_model(tiny_models["gpt2"], "preference").eval()
    pairs = read_pairs(validation)  # each row by hand
    by_hand = {"after": pair_logprobs(tuned, tokenizer, pairs), "before": pair_logprobs(base, tokenizer, pairs)}
    expected = dpo_by_hand(by_hand["after"], by_hand["before"], BETA)
    assert printed["validation"] == pytest.approx(expected, abs=2e-4)
    # the 160 training pairs in batches (the batched log-probability is checked row by row in test_preference_dpo)
    train_pairs = [PreferencePair(p["prompt"], p["chosen"], p["rejected"]) for p in read_pairs(train)]
    batch = collate_pairs(encode_pairs(tokenizer, resolve_template(tokenizer, "plain"), train_pairs, 64).pairs,
                          tokenizer.eos_token_id)
    with torch.no_grad():
        scores = [model_logprobs(m, batch.inputs, batch.labels, encoder_decoder=False).tolist() for m in (tuned, base)]
    n = len(train_pairs)
    expected = dpo_by_hand(list(zip(scores[0][:n], scores[0][n:])), list(zip(scores[1][:n], scores[1][n:])), BETA)
    assert printed["train"] == pytest.approx(expected, abs=2e-4)
    for when, scores in by_hand.items():  # the model's own choice, before (the base) and after
        assert printed[when]["preference_accuracy"] == pytest.approx(sum(c > r for c, r in scores) / len(scores))
        assert printed[when]["logp_margin"] == pytest.approx(sum(c - r for c, r in scores) / len(scores), abs=2e-4)


def test_the_tiny_gpt_learns_to_prefer_the_correct_answers_on_held_out_phrasings(dpo_run):
    printed, *_ = dpo_run
    before, after = printed["before"], printed["after"]
    # measured (tiny GPT-2, 20 steps, 20 held-out pairs): mean log-probability margin 0.90 -> 3.39, the model's own
    # choice 40% -> 65%, DPO's reward accuracy 80%, loss 0.693 -> 0.587; the thresholds leave room for another
    # CPU's rounding (a margin of ~1 nat, three pairs of accuracy)
    assert after["logp_margin"] > before["logp_margin"] + 1.5
    assert after["preference_accuracy"] > before["preference_accuracy"]
    assert printed["validation"]["preference_accuracy"] >= 0.65
    assert printed["validation"]["loss"] < 0.65


def test_a_run_starts_from_an_earlier_runs_folder_with_its_template(dpo_run, tmp_path, tiny_models):
    printed, out, home, train, validation = dpo_run
    second = tmp_path / "second"
    code, text, err = _cli(
        ["finetune", str(out), "--task", "preference", "--train", str(validation), "--validation", str(validation),
         "--method", "lora", "--epochs", "1", "--batch-size", "16", "--max-length", "64",
         "--train-setting", "threads=1", "--out", str(second), "--json"], home)
    assert code == 0, err
    again = json.loads(text)
    assert again["base_model"] == str(out.resolve() / "adapter")  # a full run's model, as it is
    assert again["reference"] == "disabled-adapter" and again["beta"] == 0.1
    assert again["template"]["source"] == "plain" and str(out) in again["template"]["note"]
    # it starts where the first run ended: its "before" is the first run's "after" on the same pairs
    assert again["before"]["logp_margin"] == pytest.approx(printed["after"]["logp_margin"], abs=1e-3)
    assert again["before"]["preference_accuracy"] == printed["after"]["preference_accuracy"]


@pytest.mark.parametrize("case, message", [
    ("beta", "--beta is preference tuning's setting"),
    ("method", "does not support the preference task"),
    ("encoder", "takes a decoder language model (GPT-2, Llama-style) or an encoder-decoder (BART, T5)"),
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
    elif case == "encoder":  # a BERT (an encoder-decoder is taken: tests/finetune/test_preference_seq2seq.py)
        model = str(tiny_models["bert"])
    else:
        data = pairs
    task = "seq-cls" if case == "beta" else "preference"
    code, _, err = _cli(["finetune", model, "--task", task, "--train", str(data), "--method", method, *extra,
                         "--out", str(tmp_path / "out"), "--json"], tmp_path / "home")
    assert code == 2
    assert err.count("\n") == 1 and message in err, err


def test_the_fine_tune_tab_offers_the_task_and_shows_a_runs_curves_and_before_after(dpo_run, open_window, qtbot,
                                                                                     tiny_models, monkeypatch):
    from lm_workbench.engine.finetune.demo import demo_path, demo_validation_path
    from lm_workbench.ui.window.view_registry import ViewRegistry, builtin_views
    from lm_workbench.finetune.state import read_result
    from lm_workbench.paths import runs_db_path
    from lm_workbench.store import RunStore
    from lm_workbench.store.metrics_reader import MetricsReader

    printed, out, home, train, validation = dpo_run
    monkeypatch.setenv("LM_WORKBENCH_HOME", str(home))
    builtin = builtin_views()
    window = open_window(str(tiny_models["gpt2"]), "finetune", registry=ViewRegistry([builtin.get("finetune")]),
                         size=(1280, 860), about=False)
    view = window.view("finetune")
    form = view.form
    assert not form.beta_spin.isVisibleTo(form)
    form.task_combo.setCurrentIndex(form.task_combo.findData("preference"))
    assert form.task_combo.currentText() == "Preference tuning (DPO)"
    assert form.train_edit.text() == str(demo_path("preference"))
    assert form.validation_edit.text() == str(demo_validation_path("preference"))
    assert form.beta_spin.isVisibleTo(form) and form.beta_spin.value() == pytest.approx(0.1)
    form.beta_spin.setValue(0.25)
    spec = view.state.spec(str(tiny_models["gpt2"]), "out")
    assert (spec.task, spec.beta, spec.validation) == ("preference", 0.25, str(demo_validation_path("preference")))
    form.method_combo.setCurrentIndex(form.method_combo.findData("bitfit"))
    assert "does not support preference" in form.method_help.text()
    form.task_combo.setCurrentIndex(form.task_combo.findData("seq-cls"))  # back: the held-out file goes too
    assert form.validation_edit.text() == "" and not form.beta_spin.isVisibleTo(form)
    assert view.state.spec(str(tiny_models["gpt2"]), "out").beta is None

    # The recorded run as the tab shows a finished one: the three curves from its store rows, the pairs and
    # the before/after lines from its output folder.
    run_id = printed["run_id"]
    view.curves.clear("preference")
    view.curves.add_run(run_id, "full")
    reader = MetricsReader(runs_db_path())
    try:
        view.curves.add_rows(run_id, reader.rows_after(run_id))
    finally:
        reader.close()
    with RunStore(runs_db_path()) as store:
        for name in ("loss", "reward_margin", "preference_accuracy", "validation_reward_margin",
                     "validation_preference_accuracy"):
            rows = store.metrics(run_id, name)
            assert rows and view.curves.data(run_id, name) == ([r["step"] for r in rows], [r["value"] for r in rows])
    assert view.curves.plots["margin"].isVisible()
    assert "Reward margin" in view.curves.plots["margin"].titleLabel.text
    result = read_result(run_id, "full", out)
    view.state.add_result(result)
    view.results.show_result(result)
    # a lecture step may start preference tuning from the tab's last instruct or preference run
    view.form.task_combo.setCurrentIndex(view.form.task_combo.findData("preference"))
    assert view.start_from_last_run() == str(out)
    assert view._start_model(window.loaded) == str(out)
    view.start_from_last_run(False)
    assert view._start_model(window.loaded) == window.loaded.info.spec
    note = view.results.preference_note.text()
    before, after = printed["before"]["preference_accuracy"], printed["after"]["preference_accuracy"]
    assert f"preferred {100 * before:.0f}% before → {100 * after:.0f}% after" in note and "capital" in note
    shown = view.results.rows()
    assert len(shown) == 20 and {row[1] for row in shown} <= {p["chosen"] for p in read_pairs(validation)}
    # issue 49.10: a pair's table is not a classification's, and the curve and the note name what each measures
    headers = [view.results.table.horizontalHeaderItem(c).text() for c in range(4)]
    assert headers[:3] == ["Prompt", "Chosen answer", "Tuned model prefers"] and "Gold" not in headers
    assert "by the model itself" in note and "DPO reward accuracy (the curve" in note
    assert "DPO reward accuracy" in view.curves.plots["metric"].titleLabel.text
    view.curves.clear("seq-cls")
    assert not view.curves.plots["margin"].isVisible()
    view.results.show_result(None)
    assert view.results.table.horizontalHeaderItem(1).text() == "Gold"


def test_predict_answers_greedily_through_the_runs_template(dpo_run, tiny_models):
    from tests.support.preference_reference import hand_ids
    from lm_workbench.finetune.train import open_output

    printed, out, home, *_ = dpo_run
    code, text, err = _cli(["predict", str(out), "--text", "What colour is snow?", "--json"], home)
    assert code == 0, err
    found = json.loads(text)
    assert found["task"] == "preference" and found["template"] == "plain"
    tuned = open_output(out)
    ids, _ = hand_ids(tuned.tokenizer, "What colour is snow?", "")
    eos, new = tuned.tokenizer.eos_token_id, []
    with torch.no_grad():  # greedy by hand: the window is 64, so at most 32 new tokens after the prompt
        while len(new) < 32:
            token = int(tuned.model(input_ids=torch.tensor([ids + new])).logits[0, -1].argmax())
            if token == eos:
                break
            new.append(token)
    assert found["text"] == tuned.tokenizer.decode(new, skip_special_tokens=True).strip()
