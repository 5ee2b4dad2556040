"""Every command that reads a table takes ``--tsv-quoting`` and reads the reported pandas file with it: auto (the
default) gives the sentence pandas meant, ``literal`` the text with its quotes. Each command line is parsed by the
real parser and its file read by the function its handler reads it with (no model is loaded)."""

from __future__ import annotations

import argparse

import pytest

from lm_workbench.cli.parser import build_parser

pd = pytest.importorskip("pandas")

SAID = 'She said "wow" at the view.'
AS_WRITTEN = '"She said ""wow"" at the view."'
OTHER = "The room was dull."


def _embeddings(args):
    from lm_workbench.cli.embedding_commands import _read_corpus

    return _read_corpus(args).lines


def _probe(args):
    from lm_workbench.cli.probing_commands import probe_spec_from_args
    from lm_workbench.probing.runs import read_probe_task

    return read_probe_task(probe_spec_from_args(args)).texts


def _scalar_mix(args):
    from lm_workbench.cli.scalar_mix_commands import spec_from_args
    from lm_workbench.probing.runs import read_probe_task

    return read_probe_task(spec_from_args(args)).texts


def _sts(args):
    from lm_workbench.cli.probing_commands import sts_spec_from_args
    from lm_workbench.probing.runs import StsRun

    return StsRun(sts_spec_from_args(args)).read().first


def _prompt_eval(args):
    from lm_workbench.cli.prompt_commands import spec_from_args
    from lm_workbench.prompting.runs import PromptEvalRun

    return [e.text for e in PromptEvalRun(spec_from_args(args)).read().examples]


def _finetune(args):
    from lm_workbench.cli.finetune_commands import spec_from_args
    from lm_workbench.finetune.task_data import read_task_data

    return [e.text for e in read_task_data(spec_from_args(args)).train]


def _retrieve(args):
    from lm_workbench.engine.progress import NEVER_CANCELLED
    from lm_workbench.retrieval import view_tasks

    return view_tasks.read_corpus(args.corpus, NEVER_CANCELLED, args.tsv_quoting)[0].texts  # as cmd_retrieve reads it


LABELLED = {"sentence": [SAID, OTHER], "label": ["positive", "negative"]}
COMMANDS = [  # (command line, FILE standing for the file, the table pandas writes, the reader)
    (["neighbours", "minilm", "--corpus", "FILE", "--layer", "1", "--word", "wow"], LABELLED, _embeddings),
    (["project", "minilm", "--corpus", "FILE", "--layer", "1", "--out", "o.csv"], LABELLED, _embeddings),
    (["probe", "minilm", "--task", "FILE", "--kind", "sentence"], LABELLED, _probe),
    (["scalar-mix", "minilm", "--task", "FILE", "--kind", "sentence"], LABELLED, _scalar_mix),
    (["sts", "minilm", "--data", "FILE"],
     {"sentence1": [SAID, OTHER, "A cat."], "sentence2": [OTHER, SAID, "A dog."], "score": [1.0, 2.0, 3.0]}, _sts),
    (["prompt-eval", "minilm", "--template", "[x] It was [z].", "--verbalizer", "positive=good;negative=bad",
      "--data", "FILE"], LABELLED, _prompt_eval),
    (["finetune", "minilm", "--task", "seq-cls", "--train", "FILE", "--validation", "FILE", "--method", "lora",
      "--out", "OUT"], LABELLED, _finetune),
    (["retrieve", "minilm", "--corpus", "FILE", "--query", "view"], {"text": [SAID, OTHER]}, _retrieve),
]


@pytest.mark.parametrize("argv, columns, read", COMMANDS, ids=[c[0][0] for c in COMMANDS])
def test_every_table_command_reads_a_pandas_tsv_as_chosen(tmp_path, argv, columns, read):
    path = tmp_path / "data.tsv"
    pd.DataFrame(columns).to_csv(path, sep="\t", index=False)
    line = [str(path) if a == "FILE" else str(tmp_path / "out") if a == "OUT" else a for a in argv]
    parser = build_parser()
    auto = parser.parse_args(line)
    assert isinstance(auto, argparse.Namespace) and SAID in read(auto)
    literal = parser.parse_args([*line, "--tsv-quoting", "literal"])
    assert AS_WRITTEN in read(literal) and SAID not in read(literal)


def test_the_table_commands_are_all_the_commands_that_take_the_option():
    """A command that reads a table and lacks the option fails here: the list above is every command with it."""
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    with_option = set()
    for name, command in sub.choices.items():
        if name == "finetune":
            command.parse_known_args(["--task", "seq-cls"])  # adds the method options it builds lazily
        if any("--tsv-quoting" in a.option_strings for a in command._actions):
            with_option.add(name)
    assert with_option == {argv[0] for argv, _, _ in COMMANDS}


def test_a_run_repeats_its_choice():
    """The recorded command line of a run carries a chosen convention (``Run again``, ``finetune --resume``)."""
    from lm_workbench.finetune.spec import FineTuneSpec
    from lm_workbench.probing.spec import ProbeSpec, StsSpec
    from lm_workbench.prompting.spec import PromptEvalSpec

    specs = [ProbeSpec("m", "t.tsv", "sentence", tsv_quoting="csv"), StsSpec("m", "s.tsv", tsv_quoting="csv"),
             PromptEvalSpec("m", ["[x] It was [z]."], ["a=b;c=d"], "d.tsv", tsv_quoting="csv"),
             FineTuneSpec("m", "seq-cls", "t.tsv", "lora", "out", tsv_quoting="csv")]
    for spec in specs:
        spec.check()
        assert "--tsv-quoting csv" in spec.cli_command()
        assert type(spec).from_dict(spec.to_dict()).tsv_quoting == "csv"
    with pytest.raises(Exception, match="--tsv-quoting is for the tasks read from tables"):
        FineTuneSpec("m", "qa", "t.json", "lora", "out", tsv_quoting="csv").check()
