"""A fine-tuning method's own settings from the API (issue 44.1): ``method_settings={"rank": 4}`` reaches the run as
``--lora-rank 4`` does on the command line (the same trained-parameter count, the same recorded settings), and a
setting the method does not have, or a value it cannot take, is refused with the CLI's line on both paths.
Tiny random BERT (``tiny_models``), one epoch of eight sentences."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout

import pytest

import lm_workbench as lw
from lm_workbench.cli.main import main
from lm_workbench.engine.errors import WorkbenchError

ROWS = [("the statement is true", "yes"), ("the statement is false", "no"), ("it is true", "yes"),
        ("it is false", "no")] * 2
COMMON = dict(task="seq-cls", epochs=1, batch_size=4, max_length=16)


@pytest.fixture
def train(tmp_path):
    path = tmp_path / "train.tsv"
    path.write_text("sentence\tlabel\n" + "".join(f"{t}\t{lab}\n" for t, lab in ROWS), encoding="utf-8")
    return path


def _cli_words(**options) -> list[str]:
    return [w for k, v in options.items() for w in (f"--{k.replace('_', '-')}", str(v))]


def _lora_parameters(folder, rank: int) -> int:
    """LoRA's trained parameters on BERT's query and value (its default targets): for each such Linear (in -> out),
    A is rank x in and B is out x rank, so rank * (in + out); from the model's config alone."""
    import transformers

    config = transformers.AutoConfig.from_pretrained(folder)
    hidden = config.hidden_size
    targets = [(hidden, hidden), (hidden, hidden)]  # query: hidden -> heads*head_dim = hidden; value the same
    return config.num_hidden_layers * sum(rank * (d_in + d_out) for d_in, d_out in targets)


def _stored_settings(run_id: int) -> dict:
    from lm_workbench.paths import runs_db_path
    from lm_workbench.store import RunStore

    with RunStore(runs_db_path()) as store:
        return store.get_run(run_id)["params"]["method_config"]


def test_method_settings_reach_the_run_as_the_clis_options(tiny_models, train, tmp_path, fresh_home):
    import torch

    folder = str(tiny_models["bert"])
    previous = torch.get_num_threads()
    m = lw.load(folder, offline=True)
    runs = {}
    for name, settings in (("api-rank-4", {"rank": 4}), ("api-default", {})):
        runs[name] = m.finetune(train=str(train), validation=str(train), method="lora", method_settings=settings,
                                train_setting=["threads=1"], out=str(tmp_path / name), **COMMON).to_dict()
    buffer = io.StringIO()
    with redirect_stdout(buffer):
        code = main(["finetune", folder, "--train", str(train), "--validation", str(train), "--method", "lora",
                     "--lora-rank", "4", "--train-setting", "threads=1", *_cli_words(**COMMON),
                     "--out", str(tmp_path / "cli-rank-4"), "--json"])
    torch.set_num_threads(previous)
    assert code == 0
    runs["cli-rank-4"] = json.loads(buffer.getvalue())
    trained = {name: run["trainable_parameters"] for name, run in runs.items()}
    assert trained["api-rank-4"] == trained["cli-rank-4"]
    # LoRA's factors plus the new classifier (hidden -> 2 labels, with its bias); rank 8 is the default
    import transformers

    head = transformers.AutoConfig.from_pretrained(folder).hidden_size * 2 + 2
    assert trained["api-rank-4"] == _lora_parameters(folder, 4) + head
    assert trained["api-default"] == _lora_parameters(folder, 8) + head
    # what the run recorded and applied: the CLI's strings in the spec, the method's Config in the manifest
    assert _stored_settings(runs["api-rank-4"]["run_id"]) == _stored_settings(runs["cli-rank-4"]["run_id"]) \
        == {"rank": "4"}
    assert _stored_settings(runs["api-default"]["run_id"]) == {}
    for name, rank in (("api-rank-4", 4), ("cli-rank-4", 4), ("api-default", 8)):
        manifest = json.loads((tmp_path / name / "finetune.json").read_text(encoding="utf-8"))
        assert manifest["method_config"]["rank"] == rank, name


LORA = "rank, alpha, dropout, target_modules"
# (method, API method_settings, the same on the command line, the line both refuse it with)
REFUSED = [
    ("houlsby", {"rank": 4}, ["--houlsby-rank", "4"],  # another method's setting
     "--houlsby-rank: rank is a setting of --method dora, loha, lokr, lora, rslora, vera, not of houlsby"),
    ("lora", {"rnk": 4}, ["--lora-rnk", "4"],  # a slip: the nearest setting named
     "--lora-rnk: --method lora has no setting rnk; the nearest is rank (--lora-rank)"),
    ("lora", {"r": 4}, ["--lora-r", "4"],  # no abbreviation is taken for a setting
     f"--lora-r: --method lora has no setting r; its settings: {LORA}"),
    ("bitfit", {"rank": 4}, ["--bitfit-rank", "4"],
     "--bitfit-rank: rank is a setting of --method dora, loha, lokr, lora, rslora, vera, not of bitfit"),
    ("lora", {"rank": "four"}, ["--lora-rank", "four"], "lora: rank must be a number (int), not 'four'"),
    ("lora", {"rank": 4.5}, ["--lora-rank", "4.5"], "lora: rank must be a number (int), not '4.5'"),
    ("lora", {"rank": 0}, ["--lora-rank", "0"], "lora: rank must be at least 1, not 0"),
    ("houlsby", {"train_layer_norms": "maybe"}, ["--houlsby-train-layer-norms", "maybe"],
     "houlsby: train_layer_norms must be true or false, not 'maybe'"),
    # the command line alone can name another method's option; the API's names are the chosen method's
    ("houlsby", None, ["--lora-rank", "4"], "--lora-rank is a setting of --method lora, not of houlsby"),
    # the API alone can pass a value the command line has no words for, or settings without a method
    ("lora", {"rank": [4]}, None, "--lora-rank: a setting is a bool, int, float or str, not list ([4])"),
    (None, {"rank": 4}, None, "method_settings are a method's settings: name the method too (--method)"),
]


@pytest.mark.parametrize("method, settings, words, line", REFUSED)
def test_a_setting_the_method_cannot_take_is_refused_with_the_clis_line(method, settings, words, line, tiny_models,
                                                                      train, tmp_path, fresh_home, capsys):
    from lm_workbench.paths import runs_db_path
    from lm_workbench.store import RunStore

    folder = str(tiny_models["bert"])
    said = []
    if words is not None:
        assert main(["finetune", folder, "--task", "seq-cls", "--train", str(train), "--method", method, *words,
                     "--out", str(tmp_path / "cli"), "--json"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("lm-workbench: error: "), err
        said.append(err.removeprefix("lm-workbench: error: ").strip())
    if settings is not None:
        with pytest.raises(WorkbenchError) as refused:
            lw.finetune(folder, task="seq-cls", train=str(train), method=method, method_settings=settings,
                        out=str(tmp_path / "api"))
        said.append(str(refused.value))
    assert said and all(text.startswith(line) for text in said), said
    assert len(set(said)) == 1, said  # the same line on both paths
    assert not (tmp_path / "cli").exists() and not (tmp_path / "api").exists()
    with RunStore(runs_db_path()) as store:
        assert store.list_runs(kind="finetune") == []


def test_method_settings_become_the_clis_options():
    from lm_workbench.api.runner import argv_of
    from lm_workbench.cli.parser import build_parser
    from lm_workbench.requests import FinetuneRequest, request_of

    request = FinetuneRequest(method="houlsby", task="seq-cls", train="t.tsv", out="o",
                              method_settings={"reduction_factor": 4, "train-layer-norms": False, "init_scale": None})
    argv = argv_of(request, as_json=False)
    assert argv[-2:] == ["--houlsby-reduction-factor=4", "--houlsby-train-layer-norms=false"]  # None: the default
    parsed = request_of(build_parser().parse_args(argv))
    assert parsed.method_settings == (("reduction_factor", "4"), ("train_layer_norms", "false"))
    assert parsed == FinetuneRequest(method="houlsby", task="seq-cls", train="t.tsv", out="o",
                                     method_settings=(("reduction_factor", "4"), ("train_layer_norms", "false")))
