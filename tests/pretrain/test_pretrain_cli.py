"""``lm-workbench pretrain``, ``runs list`` and their errors; resume, Ctrl-C and torchrun end to end."""

from __future__ import annotations

import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.pretrain_job_helpers import write_corpus
from lm_workbench.cli.main import main
from lm_workbench.cli.parser import build_parser
from lm_workbench.cli.pretrain_commands import spec_from_args
from lm_workbench.pretrain.course_cards import COURSE_MODEL_VERSION
from lm_workbench.pretrain.spec import PretrainSpec
from lm_workbench.store import RunStore
from lm_workbench.paths import runs_db_path

ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent
TINY = ["--hidden", "64", "--layers", "2", "--seq-len", "64", "--vocab-size", "400", "--batch-size", "8",
        "--lr", "3e-3", "--device", "cpu", "--train", "eval_every=0", "--train", "eval_batches=2",
        "--train", "warmup_steps=2", "--train", "threads=1", "--train", "log_every=1"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return write_corpus(tmp_path_factory.mktemp("pretrain-cli") / "grammar.txt", n_documents=120, seed=2)


def run_cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def gpt2_args(corpus, out, steps, *extra):
    return ["pretrain", "--family", "gpt2", "--objective", "clm", "--corpus", corpus, "--out", out,
            "--steps", steps, *TINY, *extra, "--json"]


@pytest.mark.timeout(120)
def test_pretrain_json_runs_list_and_resume(fresh_home, corpus, tmp_path, capsys):
    code, out, err = run_cli(capsys, *gpt2_args(corpus, tmp_path / "a", 6))
    assert code == 0, err
    first = json.loads(out)
    assert list(first)[:5] == ["run_id", "first_loss", "final_loss", "validation_loss", "tokens_per_s"]
    assert first["steps"] == 6 and first["out_dir"] == str(tmp_path / "a") and first["unigram_entropy"] > 0
    assert json.loads((tmp_path / "a" / "summary.json").read_text())["run_id"] == first["run_id"]
    speed = first["speed"]  # issue 37: which levers ran (a 6-step GPT-2 run: the chunked loss, no compile)
    assert {"compiled", "chunked_loss", "sparse_mlm_head", "bf16"} <= set(speed)
    assert (speed["chunked_loss"], speed["compiled"]) == (True, False)
    assert (speed["sparse_mlm_head"], speed["bf16"]) == (False, False)

    code, out, err = run_cli(capsys, *gpt2_args(corpus, tmp_path / "b", 10, "--resume", tmp_path / "a"))
    assert code == 0, err
    resumed = json.loads(out)
    assert resumed["steps"] == 10 and resumed["resumed_from"].endswith("step-00000006")
    code, out, _ = run_cli(capsys, "runs", "list", "--json")
    runs = {r["id"]: r for r in json.loads(out)["runs"]}
    assert set(runs) == {first["run_id"], resumed["run_id"]}
    for run in runs.values():
        assert run["kind"] == "pretrain" and run["status"] == "finished" and run["method"] == "clm"
        assert run["cli_command"].startswith("lm-workbench pretrain --family gpt2")
    assert runs[first["run_id"]]["final_metrics"]["loss"] == pytest.approx(first["final_loss"])
    with RunStore(runs_db_path()) as store:
        steps = [m["step"] for m in store.metrics(resumed["run_id"], "loss")]
        provenance = store.get_run(first["run_id"])["provenance"]
    assert steps == [7, 8, 9, 10]  # continued after the checkpoint's step 6, not from 0
    # What produced the run: versions, where it trained, its seed, and fingerprints of its data and model
    import hashlib
    import importlib.metadata

    assert provenance["versions"]["torch"] == importlib.metadata.version("torch")
    assert provenance["device"] == "cpu" and provenance["dtype"] == "fp32" and provenance["seed"] == 0
    assert provenance["data_files"] == [str(corpus)] and provenance["model_folder"] == first["out_dir"] + "/model"
    digest = hashlib.sha256()
    digest.update(corpus.read_bytes())
    assert provenance["data_hash"] and provenance["model_fingerprint"]
    assert provenance["plugin"]["name"] == "clm" and provenance["plugin"]["version"].startswith("lm-workbench")


@pytest.mark.parametrize("argv, words", [
    (["--family", "gpt2", "--objective", "clm", "--corpus", "{tmp}/missing.txt"], "corpus file .*missing.txt does not exist"),
    (["--family", "gpt2", "--objective", "no-such-thing", "--corpus", "{corpus}"], "unknown objective 'no-such-thing'"),
    (["--family", "gpt2", "--objective", "mlm", "--corpus", "{corpus}"], "mlm is for encoder models; a gpt2 model is a decoder"),
    (["--family", "t5", "--objective", "clm", "--corpus", "{corpus}"], "clm is for decoder models"),
    # the family's tokenizer lacks a token the objective needs (lm_workbench.pretrain.family_objectives, the form's table too)
    (["--family", "t5", "--objective", "bart", "--corpus", "{corpus}"],
     "bart needs mask_token, which a t5 tokenizer does not have"),
    (["--family", "bart", "--objective", "t5-span", "--corpus", "{corpus}"],
     "t5-span needs sentinels, which a bart tokenizer does not have"),
    (["--family", "bert", "--objective", "mlm", "--corpus", "{corpus}", "--set", "mask_rate=2"], "mask_rate"),
    (["--family", "bert", "--objective", "mlm", "--corpus", "{corpus}", "--train", "nonsense=1"],
     "unknown training setting 'nonsense'"),
    (["--family", "bert", "--objective", "mlm", "--corpus", "{corpus}", "--resume", "{tmp}"], "no checkpoint"),
    (["--family", "xlnet", "--objective", "mlm", "--corpus", "{corpus}"], "invalid choice"),
    (["--family", "elmo", "--objective", "mlm", "--corpus", "{corpus}"], "mlm is for encoder models"),
    (["--family", "elmo", "--objective", "bilm", "--corpus", "{corpus}", "--preset", "base"],
     "unknown preset .base. for elmo"),
    (["--family", "elmo", "--objective", "bilm", "--corpus", "{corpus}", "--dropout", "0"], "ELMo has no dropout"),
    (["--family", "t5", "--objective", "t5-span", "--corpus", "{corpus}", "--dropout", "1.5"], "dropout must be"),
])
def test_bad_input_exits_2_with_one_line(fresh_home, corpus, tmp_path, capsys, argv, words):
    import re

    argv = [a.format(tmp=tmp_path, corpus=corpus) for a in argv]
    code, out, err = run_cli(capsys, "pretrain", *argv, "--out", tmp_path / "out", "--steps", "2", "--json")
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and re.search(words, err), err
    assert not (tmp_path / "out" / "model").exists()
    assert not (runs_db_path()).exists()  # checked before any run is recorded


def test_cli_command_round_trips_through_the_parser(tmp_path):
    spec = PretrainSpec(family="bert", objective="mlm", corpus=[str(tmp_path / "a b.txt"), "c.jsonl"],
                        out_dir=str(tmp_path / "out dir"), preset="mini", layers=3, heads=2, dropout=0.05,
                        max_positions=96,
                        vocab_size=3000, objective_config={"mask_rate": "0.2", "masking": "static"},
                        training={"steps": 50, "lr": 0.001, "warmup_steps": 4, "threads": None, "schedule": "cosine"},
                        validation_fraction=0.1, resume=str(tmp_path / "old"), name="my run")
    argv = shlex.split(spec.cli_command())
    assert argv[:2] == ["lm-workbench", "pretrain"]
    again = spec_from_args(build_parser().parse_args(argv[1:]))
    assert again.to_dict() == spec.to_dict()


@pytest.mark.timeout(120)
def test_ctrl_c_cancels_with_a_checkpoint(fresh_home, corpus, tmp_path):
    out = tmp_path / "run"
    argv = [sys.executable, "-m", "lm_workbench", *map(str, gpt2_args(corpus, out, 100_000, "--checkpoint-every", "1000"))]
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        store_path = runs_db_path()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if store_path.exists():
                with RunStore(store_path) as store:
                    runs = store.list_runs()
                    if runs and len(store.metrics(runs[0]["id"], "loss")) >= 3:
                        break
            time.sleep(0.1)
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130 and stdout == ""
    assert "cancelled at step" in stderr and f"--resume {out}" in stderr
    assert len(list((out / "checkpoints").glob("step-*"))) == 1
    with RunStore(store_path) as store:
        assert store.list_runs()[0]["status"] == "cancelled"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_torchrun_two_cpu_processes_record_one_run(fresh_home, corpus, tmp_path):
    torchrun = VENV_BIN / "torchrun"
    argv = [str(torchrun), "--nproc_per_node", "2", "--master_port", str(_free_port()), "-m", "lm_workbench",
            *map(str, gpt2_args(corpus, tmp_path / "ddp", 4))]
    env = os.environ | {"LM_WORKBENCH_HOME": str(fresh_home), "OMP_NUM_THREADS": "1"}
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=220, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    assert len(lines) == 1  # only rank 0 reports
    summary = json.loads(lines[0])
    assert summary["steps"] == 4 and (tmp_path / "ddp" / "model" / "model.safetensors").is_file()
    with RunStore(runs_db_path()) as store:
        runs = store.list_runs()
        assert [(r["id"], r["status"]) for r in runs] == [(summary["run_id"], "finished")]
        assert len(store.metrics(summary["run_id"], "loss")) == 4


@pytest.mark.timeout(120)
def test_course_models_are_saved_named_and_registered(fresh_home, corpus, tmp_path, capsys, monkeypatch):
    from lm_workbench.pretrain import course_models
    from lm_workbench.settings import load_settings

    # The real settings take minutes (measured separately); the same code path with a few steps.
    monkeypatch.setitem(course_models.COURSE_SETTINGS, "gpt2", (
        "clm", {"hidden": 64, "layers": 2, "max_positions": 32, "vocab_size": 400},
        {"steps": 60, "batch_size": 8, "lr": 5e-3, "warmup_steps": 5, "threads": 1}))
    code, out, err = run_cli(capsys, "course-models", "--corpus", corpus, "--out", tmp_path / "course",
                             "--families", "gpt2", "--json")
    assert code == 0, err
    assert "model 1 of 1: pre-training Tiny GPT-2 (clm)" in err and "(an estimate from " in err  # on stderr
    [model] = json.loads(out)["models"]
    assert model["family"] == "gpt2" and "tiny, for demonstrations" in model["name"]
    assert model["below_unigram_entropy"] == (model["validation_loss"] < model["unigram_entropy"]) is True
    model_dir = tmp_path / "course" / "gpt2" / "model"
    assert model["model_dir"] == str(model_dir) and load_settings().recent_models[0] == str(model_dir)
    card = json.loads((model_dir / "workbench_model.json").read_text())
    assert card["display_name"] == model["name"] and card["tiny_for_demonstrations"] is True
    assert card["version"] == model["version"] == COURSE_MODEL_VERSION and card["build_seconds"] > 0
    assert "tiny and meant for demonstrations" in (model_dir / "README.md").read_text()
    with RunStore(runs_db_path()) as store:
        assert store.get_run(model["run_id"])["name"] == model["name"]
    # Run again (families as "a,b"): GPT-2 is built at this version, so it is skipped and said; nothing trains.
    code, out, err = run_cli(capsys, "course-models", "--corpus", corpus, "--out", tmp_path / "course",
                             "--families", "gpt2,gpt2", "--json")
    assert code == 0 and json.loads(out) == {"models": [], "skipped": [{"family": "gpt2", "model_dir": str(model_dir)}]}
    assert "GPT-2 is already built at this version: skipped (--rebuild builds them again)" in err
    with RunStore(runs_db_path()) as store:
        assert len(store.list_runs()) == 1


@pytest.mark.parametrize(("argv", "families"), [
    (["--families", "bert,gpt2"], ["bert", "gpt2"]),
    (["--families", "bert", "t5"], ["bert", "t5"]),
    (["--families", "BERT, elmo"], ["bert", "elmo"]),
    ([], None),
])
def test_course_models_takes_families_comma_or_space_separated(argv, families):
    args = build_parser().parse_args(["course-models", *argv])
    assert ([f for group in args.families for f in group] if args.families else None) == families


def test_an_unknown_course_family_is_refused_in_one_line(capsys):
    code, out, err = run_cli(capsys, "course-models", "--families", "bert,gpt3")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "unknown family gpt3" in err


def test_installed_course_models_are_found_in_a_bundle_and_in_the_data_folder(fresh_home, tmp_path, monkeypatch):
    import sys

    from lm_workbench.pretrain.course_models import course_root, installed_course_models

    for root, family in ((course_root(), "gpt2"), (tmp_path / "bundle" / "course-models", "bert")):
        (root / family / "model").mkdir(parents=True)
        (root / family / "model" / "config.json").write_text("{}", encoding="utf-8")
    (course_root() / "half-trained").mkdir()  # no model/config.json: not offered
    assert installed_course_models() == [course_root() / "gpt2"]
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path / "bundle"), raising=False)
    assert installed_course_models() == [tmp_path / "bundle" / "course-models" / "bert", course_root() / "gpt2"]
