"""A flag the CLI takes must reach the run it starts. ``baseline tfidf-lr|bilstm --keep-unseen-labels`` was parsed
and then dropped when the run's spec was built (the baseline refused the unseen label anyway). The kind: every
on/off option of a command that builds a run spec, given on the line, is on in the spec (and off without it), for
each command in the table; a command whose parser has such an option and whose spec has the field must be in it.
End to end, on files as pandas writes them: without the switch the baseline refuses the unseen label in one line;
with it, it leaves the rows out and says so (it used to say it only in --json).
"""

from __future__ import annotations

import argparse
import dataclasses

import pytest

from lm_workbench.cli.parser import build_parser
from lm_workbench.command_results.compute_course import baseline_spec
from lm_workbench.command_results.compute_evaluations import prompt_eval_spec
from lm_workbench.command_results.compute_training import finetune_spec
from lm_workbench.requests import request_of
from tests.support.cli_tree import command_parsers

# command -> (the least command line that builds a spec, the spec builder the command uses)
BUILDERS = {
    "baseline tfidf-lr": (["--train", "demo"], baseline_spec),
    "baseline bilstm": (["--train", "demo"], baseline_spec),
    "finetune": (["minilm", "--task", "seq-cls", "--train", "t.tsv", "--method", "lora", "--out", "o"],
                 finetune_spec),
    "prompt-eval": (["minilm", "--template", "[x] It was [z].", "--verbalizer", "pos=great;neg=bad",
                     "--data", "demo"], prompt_eval_spec),
}
SPEC_KINDS = ("keep_unseen_labels",)  # the on/off spec fields a command's run reads (the label rule)


def _switches(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions if isinstance(a, argparse._StoreTrueAction) and a.dest in SPEC_KINDS]


def _spec(command: str, extra: list[str]) -> object:
    base, build = BUILDERS[command]
    args = build_parser().parse_args([*command.split(), *base, *extra])
    return build(request_of(args))


@pytest.mark.parametrize("command", sorted(BUILDERS))
def test_each_switch_given_on_the_line_is_on_in_the_spec(command):
    switches = _switches(command_parsers()[command])
    assert switches, f"{command} takes none of {SPEC_KINDS}: drop it from the table"
    for action in switches:
        assert getattr(_spec(command, []), action.dest) is False
        assert getattr(_spec(command, [action.option_strings[0]]), action.dest) is True, action.option_strings[0]


def test_every_command_with_such_a_switch_is_in_the_table():
    having = {name for name, parser in command_parsers().items() if _switches(parser)}
    assert having == set(BUILDERS)


def test_the_spec_fields_exist():
    for command in BUILDERS:
        spec = _spec(command, [])
        assert {f.name for f in dataclasses.fields(spec)} >= set(SPEC_KINDS), command


def _labelled(path, rows):
    """A table as pandas' ``to_csv(index=False, encoding="utf-8-sig")`` writes it: a BOM, quotes doubled."""
    import csv

    with open(path, "w", encoding="utf-8-sig", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["text", "label"])
        writer.writerows(rows)


def test_the_baseline_leaves_out_an_unseen_label_only_when_asked_and_says_so(tmp_path, capsys):
    from lm_workbench.cli.main import main

    train, valid = tmp_path / "train.csv", tmp_path / "valid.csv"
    _labelled(train, [('I "loved" it, truly', "pos"), ("awful, just awful", "neg"), ("great fun", "pos"),
                      ("boring, slow", "neg")] * 4)
    _labelled(valid, [("fine, I guess", "neutral"), ("loved it", "pos"), ("hated it", "neg")])
    base = ["baseline", "tfidf-lr", "--train", str(train), "--validation", str(valid)]
    assert main(base) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "'neutral' (1)" in err[0] and "--keep-unseen-labels" in err[0]
    assert main([*base, "--keep-unseen-labels"]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["note: 1 validation example(s) left out (--keep-unseen-labels): their label(s) 'neutral' (1) "
                   "never appear in training"]
