"""``lm-workbench finetune --method parallel-adapter|mam|dora|...`` with their ``--<method>-<field>`` flags, the
``checkpoint_bytes`` key, and a method that cannot attach to a family refused before any run is recorded."""

from __future__ import annotations

import json
import os

import pytest
import torch

from lm_workbench.engine.finetune.demo import demo_path
from lm_workbench.cli.finetune_commands import spec_from_args
from lm_workbench.cli.main import main
from lm_workbench.cli.parser import build_parser


def _sentences(folder, first: int, count: int):
    lines = demo_path("seq-cls").read_text(encoding="utf-8").splitlines()
    path = folder / f"sentiment-{first}.tsv"
    path.write_text("\n".join([lines[0]] + lines[1 + first:1 + first + count]) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("argv, expected", [
    (["--method", "parallel-adapter", "--parallel-adapter-reduction-factor", "8", "--parallel-adapter-scale", "4",
      "--parallel-adapter-site", "attention"], {"reduction_factor": "8", "scale": "4", "site": "attention"}),
    (["--method", "mam", "--mam-prefix-length", "10", "--mam-ffn-bottleneck", "64", "--mam-scale", "2"],
     {"prefix_length": "10", "ffn_bottleneck": "64", "scale": "2"}),
    (["--method", "dora", "--dora-rank", "4"], {"rank": "4"}),
    (["--method", "rslora", "--rslora-alpha", "4"], {"alpha": "4"}),
    (["--method", "ia3", "--ia3-feedforward", "false"], {"feedforward": "false"}),
    (["--method", "vera", "--vera-rank", "64"], {"rank": "64"}),
    (["--method", "loha", "--loha-rank", "2"], {"rank": "2"}),
    (["--method", "lokr", "--lokr-decompose-factor", "4"], {"decompose_factor": "4"}),
    (["--method", "oft", "--oft-block-size", "16"], {"block_size": "16"}),
])
def test_each_methods_flags_reach_the_spec(argv, expected):
    args = build_parser().parse_args(["finetune", "--task", "seq-cls", "--train", "t.tsv", "--out", "o", *argv])
    assert spec_from_args(args).method_config == expected


def test_a_mam_run_predicts_after_reload_and_reports_the_checkpoints_bytes(tmp_path, tiny_models, fresh_home, capsys):
    train, validation = _sentences(tmp_path, 0, 8), _sentences(tmp_path, 300, 4)
    out = tmp_path / "out"
    previous = torch.get_num_threads()
    try:
        code = main(["finetune", str(tiny_models["bert"]), "--task", "seq-cls", "--train", str(train),
                     "--validation", str(validation), "--method", "mam", "--mam-prefix-length", "6",
                     "--mam-ffn-bottleneck", "8", "--epochs", "1", "--max-length", "16",
                     "--train-setting", "threads=1", "--out", str(out), "--json"])
    finally:
        torch.set_num_threads(previous)
    assert code == 0
    printed = json.loads(capsys.readouterr().out)
    on_disk = sum(os.path.getsize(os.path.join(root, name)) for root, _, names in os.walk(out / "adapter")
                  for name in names) + os.path.getsize(out / "finetune.json")
    assert printed["checkpoint_bytes"] == on_disk
    assert (out / "adapter" / "mam_parallel_adapters.safetensors").is_file()
    rows = [json.loads(line) for line in (out / "validation_predictions.jsonl").read_text().splitlines()]
    assert main(["predict", str(out), "--text", rows[0]["text"], "--json"]) == 0
    said = json.loads(capsys.readouterr().out)
    assert said["label"] == rows[0]["predicted"]
    assert all(abs(said["probabilities"][k] - rows[0]["probabilities"][k]) <= 1e-6 for k in said["probabilities"])


@pytest.mark.parametrize("family, method, words", [
    ("gpt2", "loha", "loha cannot attach to GPT2ForSequenceClassification: its target layers (c_attn) are "
                     "transformers' Conv1D"),
    ("gpt2", "oft", "transformers' Conv1D"),
    ("bart", "mam", "mam cannot attach to BartForSequenceClassification: its prefix part cannot"),
])
def test_a_method_that_cannot_attach_is_refused_in_one_line_before_a_run(family, method, words, tmp_path,
                                                                         tiny_models, fresh_home, capsys):
    from lm_workbench.paths import runs_db_path
    from lm_workbench.store import RunStore

    train = _sentences(tmp_path, 0, 8)
    code = main(["finetune", str(tiny_models[family]), "--task", "seq-cls", "--train", str(train), "--method", method,
                 "--out", str(tmp_path / "out"), "--json"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and words in err, err
    with RunStore(runs_db_path()) as store:
        assert store.list_runs(kind="finetune") == []
    assert not (tmp_path / "out").exists()
