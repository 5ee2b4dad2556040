"""Every run's spec on the one base (``lm_workbench.runs.spec.RunSpec``): the one unknown-key check, the round trip
through the run store's params, and the command line that parses back (with the real CLI parser) to the spec."""

from __future__ import annotations

import re
import shlex

import pytest

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.cli import finetune_commands, pretrain_commands, probing_commands, prompt_commands
from lm_workbench.cli import retrieval_commands, sae_commands, scalar_mix_commands
from lm_workbench.cli.parser import build_parser
from lm_workbench.finetune.spec import FineTuneSpec
from lm_workbench.pretrain.spec import PretrainSpec
from lm_workbench.probing.spec import ProbeSpec, ScalarMixSpec, StsSpec
from lm_workbench.prompting.spec import PromptEvalSpec
from lm_workbench.retrieval.spec import RetrievalEvalSpec
from lm_workbench.sae.spec import SaeTrainSpec
from lm_workbench.runs.kinds import run_kind
from lm_workbench.runs.spec import RunSpec

# One spec of each kind, each with settings away from their defaults (and one with a space in a path), and the
# CLI function that builds a spec from that command's parsed arguments.
SPECS = {
    "pretrain": (PretrainSpec(family="gpt2", objective="clm", corpus=["my corpus.txt", "b.jsonl"], out_dir="out dir",
                              preset="mini", layers=3, hidden=96, heads=2, dropout=0.0, max_positions=64,
                              vocab_size=500,
                              objective_config={"span": "3"}, training={"steps": 7, "lr": 0.002, "eval_every": 5},
                              validation_fraction=0.1, name="a run"),
                 pretrain_commands.spec_from_args),
    "finetune": (FineTuneSpec(model="some/model", task="seq-cls", train="train set.tsv", method="lora",
                              out_dir="out", validation="dev.tsv", method_config={"rank": "4"}, epochs=2.5, lr=0.0003,
                              batch_size=8, max_length=64, seed=3, text_columns=["premise", "hypothesis"],
                              training={"eval_every": 5}),
                 finetune_commands.spec_from_args),
    "probe": (ProbeSpec("some/model", "my tags.conllu", "sentence", "cls", 4), probing_commands.probe_spec_from_args),
    "sts": (StsSpec("minilm", "pairs file.tsv", "model"), probing_commands.sts_spec_from_args),
    "scalar-mix": (ScalarMixSpec("minilm", "demo", "token", "mean", 2, 40), scalar_mix_commands.spec_from_args),
    "prompt-eval": (PromptEvalSpec("some/model", ["[x] It was [z].", "[x] All in all, [z]."],
                                   ["pos=great;neg=bad"], "reviews.tsv", mode="cloze", k_shot=2, seed=5,
                                   selection="balanced", calibrate=True, multi_token="pll", length_normalise=True,
                                   limit=10),
                    prompt_commands.spec_from_args),
    "sae": (SaeTrainSpec(model="some/model", corpus="my corpus.txt", out="sae dir", site="blocks.1.hook_mlp_out",
                         kind="jumprelu", expansion=4, sparsity=0.01, steps=30, batch=64, lr=0.002, buffer_tokens=512,
                         context=32, seed=2, checkpoint_every=10, resume=True, name="an SAE"),
            sae_commands.spec_from_args),
    "retrieval-eval": (RetrievalEvalSpec("minilm", "my beir folder", "dev", 20, "max", True, 1.2, 0.5, "bm25+"),
                       retrieval_commands.eval_spec_from_args),
}


@pytest.mark.parametrize("name", SPECS)
def test_an_unknown_key_is_refused_with_the_one_message(name):
    spec, _ = SPECS[name]
    params = {**spec.to_dict(), "colour": "red", "bogus": 1}
    with pytest.raises(WorkbenchError) as caught:
        type(spec).from_dict(params)
    assert str(caught.value) == f"unknown {type(spec).WHAT} setting(s): bogus, colour"
    assert re.fullmatch(r"unknown [\w -]+ setting\(s\): bogus, colour", str(caught.value))


def test_every_spec_is_a_run_spec_and_names_itself_apart():
    kinds = [type(spec) for spec, _ in SPECS.values()]
    assert all(issubclass(kind, RunSpec) for kind in kinds)
    assert len({kind.WHAT for kind in kinds}) == len(kinds)  # each message says which kind of run it was


@pytest.mark.parametrize("name", SPECS)
def test_a_spec_round_trips_through_its_params(name):
    spec, _ = SPECS[name]
    params = spec.to_dict()
    again = type(spec).from_dict(params)
    assert again == spec and again is not spec
    assert again.to_dict() == params


@pytest.mark.parametrize("name", SPECS)
def test_the_command_line_parses_back_to_the_same_spec(name):
    spec, from_args = SPECS[name]
    line = spec.cli_command()
    argv = shlex.split(line)
    assert argv[0] == "lm-workbench"
    args = build_parser().parse_args(argv[1:])
    assert from_args(args) == spec


@pytest.mark.parametrize("kind", ["pretrain", "finetune", "probe", "sts", "scalar-mix", "prompt-eval", "sae"])
def test_a_stored_run_copies_as_its_spec_command_line(kind):
    spec, _ = SPECS[kind]
    assert run_kind(kind).cli_command(spec.to_dict()) == spec.cli_command()


def test_every_kind_a_run_is_recorded_as_can_be_run_again():
    """Each kind registers through the entry-point group beside its spec; its lane target resolves to a job
    (scalar-mix runs used to be recorded without one, so the Runs tab could not run them again)."""
    from lm_workbench.runs.kinds import run_kinds
    from lm_workbench.runs.run_context import resolve_target

    recorded = set(SPECS) | {"tuned-lens"}
    assert recorded <= set(run_kinds())
    for kind in recorded:
        assert callable(resolve_target(run_kind(kind).target)), kind


def test_a_broken_run_kind_entry_is_left_out_and_the_others_kept():
    from lm_workbench.runs.kinds import RunKind, discover_run_kinds

    class Entry:
        def __init__(self, name, value):
            self.name, self.value = name, value

        def load(self):
            if isinstance(self.value, Exception):
                raise self.value
            return self.value

    good = RunKind("toy", "toy.module:job", "Toy", command=lambda params: "lm-workbench toy")
    found = discover_run_kinds([Entry("toy", good), Entry("bad", ImportError("no module named toy")),
                                Entry("odd", "not a kind")])
    assert found == {"toy": good}


def test_a_missing_required_setting_is_named():
    params = SPECS["pretrain"][0].to_dict()
    del params["corpus"], params["out_dir"]
    with pytest.raises(WorkbenchError, match="a pre-training run needs corpus, out_dir"):
        PretrainSpec.from_dict(params)


def test_checks_run_before_anything_heavy():
    with pytest.raises(WorkbenchError, match="--steps must be at least 1"):
        ScalarMixSpec("m", "demo", "token", steps=0).checked()
    with pytest.raises(WorkbenchError, match="--kind must be token or sentence"):
        ScalarMixSpec("m", "demo", "word").checked()
    with pytest.raises(WorkbenchError, match="--limit must be at least 1"):
        PromptEvalSpec("m", ["[x] It was [z]."], ["pos=great;neg=bad"], "d.tsv", limit=0).checked()
    with pytest.raises(WorkbenchError, match="--mode must be auto, cloze or prefix"):
        PromptEvalSpec("m", ["[x] It was [z]."], ["pos=great;neg=bad"], "d.tsv", mode="infix").checked()


def test_a_summary_is_written_whole_and_read_back(tmp_path):
    from lm_workbench.runs.summary import SUMMARY_FILE, finite, read_summary, write_json_atomic

    with pytest.raises(WorkbenchError, match="has no summary.json: the run did not finish"):
        read_summary(tmp_path)
    summary = {"final_loss": finite(float("nan")), "steps": 3, "lr": finite("0.5"), "best": finite(float("inf"))}
    write_json_atomic(tmp_path / SUMMARY_FILE, summary)
    assert read_summary(tmp_path) == {"final_loss": None, "steps": 3, "lr": 0.5, "best": None}
    assert [p.name for p in tmp_path.iterdir()] == [SUMMARY_FILE]  # no temporary file left behind


def test_a_default_output_folder_is_new_and_under_the_data_folder(fresh_home):
    from lm_workbench.paths import data_dir
    from lm_workbench.runs.summary import default_out_dir

    pretrained = default_out_dir("pretrained", "bert-mlm-tiny")
    tuned = default_out_dir("finetune", "lora", time_first=True)
    assert pretrained.parent == data_dir() / "pretrained" and tuned.parent == data_dir() / "finetune"
    assert re.fullmatch(r"bert-mlm-tiny-\d{8}-\d{6}", pretrained.name)
    assert re.fullmatch(r"\d{8}-\d{6}-lora", tuned.name)
