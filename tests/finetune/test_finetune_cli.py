"""``lm-workbench finetune`` / ``predict`` / ``finetune-merge``, the run store and the lane's job target.

One LoRA run on MiniLM (the sentiment demo, 96 sentences, one epoch) is shared by the contract tests:
its JSON keys, the run in the store (kind ``finetune``, a ``cli_command`` that parses back to the same
spec), ``predict`` equal to the prediction the training job wrote, and the merge within 1e-5.
"""

from __future__ import annotations

import json
import shlex
import threading

import pytest
import torch

from lm_workbench.engine.finetune.demo import demo_path
from lm_workbench.cli.main import main
from lm_workbench.cli.parser import build_parser


def _sentiment_subset(folder, first: int, count: int):
    lines = demo_path("seq-cls").read_text(encoding="utf-8").splitlines()
    path = folder / f"sentiment-{first}.tsv"
    path.write_text("\n".join([lines[0]] + lines[1 + first:1 + first + count]) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def lora_run(tmp_path_factory):
    """(printed JSON, output folder, runs database) of one recorded ``finetune`` command."""
    root = tmp_path_factory.mktemp("finetune-cli")
    train, validation = _sentiment_subset(root, 0, 96), _sentiment_subset(root, 300, 24)
    out = root / "out"
    argv = ["finetune", "--task", "seq-cls", "--train", str(train), "--validation", str(validation),
            "--method", "lora", "--lora-rank", "4", "--epochs", "1", "--max-length", "24",
            "--train-setting", "threads=1", "--out", str(out), "--json"]
    previous = torch.get_num_threads()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LM_WORKBENCH_HOME", str(root / "home"))
        import io
        from contextlib import redirect_stdout

        buffer = io.StringIO()
        with redirect_stdout(buffer):
            code = main(argv)
        from lm_workbench.paths import runs_db_path

        db = runs_db_path()
    torch.set_num_threads(previous)
    assert code == 0
    return json.loads(buffer.getvalue()), out, db


def test_finetune_json_has_the_contract_keys(lora_run):
    printed, out, _ = lora_run
    assert list(printed)[:4] == ["run_id", "trainable_parameters", "total_parameters", "validation"]
    assert set(printed["validation"]) == {"accuracy", "f1", "mcc"}
    assert all(0.0 <= printed["validation"][k] <= 1.0 for k in ("accuracy", "f1"))
    assert 0 < printed["trainable_parameters"] < printed["total_parameters"] / 100  # LoRA trains < 1%
    summary = json.loads((out / "summary.json").read_text())
    assert summary["validation"] == printed["validation"] and summary["run_id"] == printed["run_id"]
    manifest = json.loads((out / "finetune.json").read_text())
    assert manifest["method"] == "lora" and manifest["method_config"]["rank"] == 4
    # checkpoint_bytes: what predict opens, the adapter folder and the manifest, summed from the disk here
    adapter = out / "adapter"
    assert printed["checkpoint_bytes"] == sum(p.stat().st_size for p in adapter.rglob("*") if p.is_file()) + (
        out / "finetune.json").stat().st_size
    assert manifest["labels"] == ["negative", "positive"]


def test_the_run_is_in_the_store_with_a_command_that_repeats_it(lora_run):
    from lm_workbench.cli.finetune_commands import spec_from_args
    from lm_workbench.finetune.spec import FineTuneSpec
    from lm_workbench.runs.kinds import run_kind
    from lm_workbench.store import RunStore

    printed, out, db = lora_run
    with RunStore(db) as store:
        run = store.get_run(printed["run_id"])
        names = {row["name"] for row in store.metrics(run["id"])}
    assert run["kind"] == "finetune" and run["status"] == "finished" and run["method"] == "lora"
    assert {"loss", "validation_loss", "accuracy", "f1", "mcc", "trainable_parameters"} <= names
    command = run_kind("finetune").cli_command(run["params"])
    assert command == run["cli_command"]
    words = shlex.split(command)
    assert words[:2] == ["lm-workbench", "finetune"]
    again = spec_from_args(build_parser().parse_args(words[1:]))
    assert again.to_dict() == FineTuneSpec.from_dict(run["params"]).to_dict()


def test_predict_says_what_the_trained_model_said(lora_run, capsys):
    _, out, _ = lora_run
    rows = [json.loads(line) for line in (out / "validation_predictions.jsonl").read_text().splitlines()]
    for row in rows[:2]:
        assert main(["predict", str(out), "--text", row["text"], "--json"]) == 0
        said = json.loads(capsys.readouterr().out)
        assert said["label"] == row["predicted"]
        # the reloaded model's numbers: equal up to float rounding (validation ran in padded batches, predict
        # runs one text, and the reduction order follows torch's thread count, which other tests change)
        assert said["probabilities"].keys() == row["probabilities"].keys()
        assert all(abs(said["probabilities"][k] - row["probabilities"][k]) <= 1e-6 for k in row["probabilities"])


def test_merged_lora_predicts_within_1e_5(lora_run, tmp_path, capsys):
    from lm_workbench.finetune.train import open_output

    _, out, _ = lora_run
    merged = tmp_path / "merged"
    assert main(["finetune-merge", str(out), "--out", str(merged), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["method"] == "full"
    texts = ["What a brilliant trip!", "The hotel was messy.", "I found the concert tedious."]
    logits, models = [], []
    for folder in (out, merged):
        tuned = open_output(folder)
        batch = tuned.tokenizer(texts, padding=True, return_tensors="pt")
        with torch.no_grad():
            logits.append(tuned.model(**batch).logits)
        models.append(tuned.model)
    assert any("lora" in name for name, _ in models[0].named_parameters())
    assert not any("lora" in name for name, _ in models[1].named_parameters())
    assert torch.allclose(logits[0], logits[1], atol=1e-5, rtol=0)


def _run_cli(argv, capsys):
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.err


@pytest.mark.parametrize("case, message", [
    ("missing", "no such file"),
    ("empty", "empty"),
    ("column", "no 'review' column"),
    ("method", "unknown"),
    ("task", "does not support"),
    ("base", "not an encoder-decoder"),
])
def test_bad_input_is_exit_2_one_line_and_no_run(case, message, tmp_path, fresh_home, capsys):
    from lm_workbench.paths import runs_db_path
    from lm_workbench.store import RunStore

    good = _sentiment_subset(tmp_path, 0, 8)
    empty = tmp_path / "empty.tsv"
    empty.write_text("", encoding="utf-8")
    argv = {"missing": ["--task", "seq-cls", "--train", str(tmp_path / "nope.tsv"), "--method", "lora"],
            "empty": ["--task", "seq-cls", "--train", str(empty), "--method", "lora"],
            "column": ["--task", "seq-cls", "--train", str(good), "--method", "lora", "--text-columns", "review"],
            "method": ["--task", "seq-cls", "--train", str(good), "--method", "dreaming"],
            "task": ["--task", "seq2seq", "--train", str(good), "--method", "features"],
            "base": ["--task", "seq2seq", "--train", str(good), "--method", "lora"]}[case]
    code, err = _run_cli(["finetune", *argv, "--out", str(tmp_path / "out"), "--json"], capsys)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("lm-workbench: error:") and message in err, err
    with RunStore(runs_db_path()) as store:
        assert store.list_runs(kind="finetune") == []


def test_the_lane_job_records_a_finetune_run(tmp_path, tiny_models):
    """``submit_finetune`` queues the spec with the job target; the lane's child entry point runs it."""
    from lm_workbench.finetune.runs import submit_finetune
    from lm_workbench.finetune.spec import FineTuneSpec
    from lm_workbench.runs.run_context import run_in_child
    from lm_workbench.finetune.runs import FINETUNE
    from lm_workbench.store import RunStore

    class QueueOnly:  # what submit_finetune hands a LongRunLane, recorded in a real store
        def __init__(self, store):
            self.store, self.submitted = store, []

        def submit(self, target, kwargs, **columns):
            self.submitted.append((target, kwargs))
            return self.store.create_run(**columns)

    db = tmp_path / "runs.sqlite"
    spec = FineTuneSpec(model=str(tiny_models["bert"]), task="seq-cls", train=str(_sentiment_subset(tmp_path, 0, 48)),
                        method="bitfit", out_dir=str(tmp_path / "out"), epochs=1, max_length=16,
                        training={"threads": 1})
    with RunStore(db) as store:
        lane = QueueOnly(store)
        run_id = submit_finetune(lane, spec)
        target, kwargs = lane.submitted[0]
    assert target == FINETUNE.target == "lm_workbench.finetune.runs:finetune_lane_job"
    previous = torch.get_num_threads()
    run_in_child(str(db), run_id, target, kwargs, threading.Event())
    torch.set_num_threads(previous)
    with RunStore(db) as store:
        run = store.get_run(run_id)
        metrics = {row["name"] for row in store.metrics(run_id)}
        artifacts = {row["name"] for row in store.artifacts(run_id)}
    assert run["status"] == "finished", run.get("error")
    assert run["kind"] == "finetune" and run["cli_command"] == spec.cli_command()
    assert {"loss", "lr", "validation_loss", "accuracy", "f1", "peak_memory_mb", "adapter_bytes"} <= metrics
    assert {"adapter", "summary"} <= artifacts
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    from lm_workbench.engine.maths.undefined import reasons

    # MCC is stored where it is defined; a model that answers one class throughout has none, and the notes say why
    assert "mcc" in metrics or "every prediction is" in reasons(summary["notes"])["mcc"]
    assert summary["run_id"] == run_id
    with RunStore(db) as store:
        before = {row["name"]: row["value"] for row in store.metrics(run_id) if row["step"] == 0}
    assert before["trainable_parameters"] == summary["trainable_parameters"]  # known before the first step
    from lm_workbench.finetune.train import parameter_counts

    assert parameter_counts(spec) == (summary["trainable_parameters"], summary["total_parameters"])


def test_a_cancelled_job_ends_cancelled_without_outputs(tmp_path, tiny_models):
    from lm_workbench.finetune.spec import FineTuneSpec
    from lm_workbench.runs.run_context import run_in_child
    from lm_workbench.finetune.runs import FINETUNE
    from lm_workbench.runs.kinds import resume_params
    from lm_workbench.store import RunStore

    db = tmp_path / "runs.sqlite"
    spec = FineTuneSpec(model=str(tiny_models["bert"]), task="seq-cls", train=str(_sentiment_subset(tmp_path, 0, 48)),
                        method="lora", out_dir=str(tmp_path / "out"), epochs=1, max_length=16,
                        training={"threads": 1})
    with RunStore(db) as store:
        run_id = store.create_run(FINETUNE.kind, params=spec.to_dict(), cli_command=spec.cli_command())
    stop = threading.Event()
    stop.set()  # the loop sees it before its first step
    previous = torch.get_num_threads()
    run_in_child(str(db), run_id, FINETUNE.target, spec.to_dict(), stop)
    torch.set_num_threads(previous)
    with RunStore(db) as store:
        run = store.get_run(run_id)
    assert run["status"] == "cancelled"
    out = tmp_path / "out"
    assert not (out / "summary.json").exists() and not (out / "adapter").exists()
    # the checkpoint saved on cancel stays, with the spec to continue it: the Runs tab offers Resume
    assert (out / "checkpoints" / "step-00000000" / "state.json").is_file()
    assert (out / "checkpoints" / "finetune_spec.json").is_file()
    assert resume_params(FINETUNE, run) == {**spec.to_dict(), "resume": str(out)}
