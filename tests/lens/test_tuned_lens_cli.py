"""``lm-workbench tuned-lens`` and ``lens --tuned`` on a tiny GPT-2: the JSON keys, the run they record, the spec.

The KL values printed are checked against ``tests.support.tuned_lens_reference.reference_kl`` (plain transformers) with the translators
the command saved, read back from the safetensors file with safetensors itself.
"""

from __future__ import annotations

import json
import shlex

import numpy as np
import pytest
import torch
from safetensors.torch import load_file

from lm_workbench.cli.main import main
from lm_workbench.cli.parser import build_parser
from lm_workbench.cli.lens_commands import spec_from_args
from lm_workbench.runs.kinds import run_kind
from lm_workbench.lens.spec import TunedLensSpec
from tests.support.tuned_lens_reference import corpus_file, reference_kl

TEXT = "The value of the object is returned."


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def gpt2(tiny_models):
    return str(tiny_models["gpt2"])


def test_tuned_lens_json_lens_tuned_json_and_the_recorded_run(capsys, fresh_home, gpt2, tmp_path):
    import transformers as tf

    corpus, out = corpus_file(tmp_path), tmp_path / "lens out"
    code, stdout, err = run_cli(capsys, "tuned-lens", gpt2, "--corpus", str(corpus), "--steps", "12", "--seq-len", "32",
                                "--lr", "0.01", "--out", str(out), "--json")
    assert code == 0, err
    summary = json.loads(stdout)
    assert list(summary)[:7] == ["run_id", "model", "out_dir", "steps", "layers", "kl", "mean_kl"]
    assert summary["steps"] == 12 and summary["layers"] == ["embeddings", "layer 1", "layer 2"]
    assert set(summary["kl"]) == {"logit", "tuned"} and set(summary["kl"]["tuned"]) == {"before", "after"}
    assert summary["kl"]["tuned"]["before"] == summary["kl"]["logit"]["before"]
    assert summary["mean_kl"]["tuned_after"] < summary["mean_kl"]["logit"]
    assert "step 12: validation loss" in err  # progress on stderr, stdout is the JSON alone
    assert (out / "translators.safetensors").is_file() and not (out / "checkpoints").exists()

    code, stdout, err = run_cli(capsys, "lens", gpt2, "--text", TEXT, "--tuned", str(out), "--json")
    assert code == 0, err
    data = json.loads(stdout)
    assert {"side", "tokens", "total_positions", "layers"} <= set(data)  # the logit lens's keys, as before
    assert {"tuned", "kl_logit", "kl_tuned", "tuned_folder"} <= set(data)
    assert data["tuned"]["tokens"] == data["tokens"]
    tensors = load_file(str(out / "translators.safetensors"))
    model = tf.AutoModelForCausalLM.from_pretrained(gpt2).eval()
    ids = torch.tensor([tf.AutoTokenizer.from_pretrained(gpt2)(TEXT)["input_ids"]])
    np.testing.assert_allclose(data["kl_logit"], reference_kl(model, ids), rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(data["kl_tuned"], reference_kl(model, ids, tensors["weight"], tensors["bias"]),
                               rtol=1e-6, atol=1e-12)

    code, stdout, _ = run_cli(capsys, "lens", gpt2, "--text", TEXT, "--tuned", "--json")  # found from the index
    assert code == 0 and json.loads(stdout)["kl_tuned"] == data["kl_tuned"]

    code, stdout, _ = run_cli(capsys, "runs", "list", "--kind", "tuned-lens", "--json")
    (run,) = json.loads(stdout)["runs"]
    assert run["id"] == summary["run_id"] and run["status"] == "finished" and run["model"] == gpt2
    assert run["final_metrics"]["mean_kl_tuned"] == pytest.approx(summary["mean_kl"]["tuned_after"])
    assert run["cli_command"] == run_kind("tuned-lens").cli_command(run["params"])
    assert shlex.split(run["cli_command"])[1] == "tuned-lens"


def test_bad_input_is_one_line_and_no_run(capsys, fresh_home, gpt2, tmp_path):
    code, _, err = run_cli(capsys, "tuned-lens", gpt2, "--corpus", str(tmp_path / "missing.txt"))
    assert code == 2 and "does not exist" in err and len(err.strip().splitlines()) == 1
    code, _, err = run_cli(capsys, "tuned-lens", gpt2, "--corpus", str(tmp_path / "x.txt"), "--steps", "0")
    assert code == 2 and "steps must be at least 1" in err
    code, _, err = run_cli(capsys, "lens", gpt2, "--text", TEXT, "--tuned", str(tmp_path))
    assert code == 2 and "holds no tuned lens" in err
    code, stdout, _ = run_cli(capsys, "runs", "list", "--json")
    assert json.loads(stdout)["runs"] == []


def test_the_spec_round_trips_and_its_command_line_parses_back():
    spec = TunedLensSpec(model="some/model", corpus=["my corpus.txt", "b.jsonl"], out_dir="out dir",
                         settings={"steps": 7, "batch_size": 2, "seq_len": 64, "lr": 0.002, "seed": 3,
                                   "validation_windows": 4, "checkpoint_every": 5}, name="a run")
    assert TunedLensSpec.from_dict(spec.to_dict()) == spec
    args = build_parser().parse_args(shlex.split(spec.cli_command())[1:])
    assert spec_from_args(args) == spec
    with pytest.raises(Exception, match="unknown tuned-lens setting"):
        TunedLensSpec.from_dict({**spec.to_dict(), "colour": "red"})
