"""The CLI's one pattern: every command comes from a module in ``COMMAND_MODULES`` with its handler bound,
and ``lm-workbench`` with no command (or ``gui``) opens the installed front-end."""

from __future__ import annotations

import argparse

import pytest

from lm_workbench.cli import gui_commands
from lm_workbench.cli.main import main
from lm_workbench.cli.parser import COMMAND_MODULES, build_parser

COMMANDS = ["gui", "download", "info", "encode", "attention", "fill-mask", "next-token", "lens", "tuned-lens", "attribute",
            "patch", "dla", "ablate", "compare", "corrupt", "plugins", "neighbours", "project", "pretrain", "runs",
            "course-models", "probe", "sts", "scalar-mix", "prompt-eval", "generate", "presets", "finetune", "predict",
            "finetune-merge", "retrieve", "retrieval-eval",
            # this round's, after the earlier ones (whose names and order are the contract)
            "guide", "baseline", "study", "sae", "steer"]


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_every_command_is_bound_to_a_handler_of_the_module_that_registers_it():
    commands = subcommands(build_parser())
    assert list(commands) == COMMANDS  # the contract: names and --help order
    for module in COMMAND_MODULES:
        parser = argparse.ArgumentParser()
        sub = parser.add_subparsers()
        module.register(sub)
        for name, command in subcommands(parser).items():
            handler = command.get_default("handler")
            assert callable(handler) and handler.__module__ == module.__name__, (name, handler)


@pytest.mark.parametrize("argv, passed", [([], []), (["gui"], []), (["gui", "some/model"], ["some/model"])])
def test_no_command_or_gui_runs_the_installed_frontend(monkeypatch, argv, passed):
    import lm_workbench.ui.app as app  # what the 'lm_workbench.frontends' entry point named gui points at

    calls = []
    monkeypatch.setattr(app, "run", lambda args: calls.append(args) or 7)
    assert main(argv) == 7 and calls == [passed]


def test_a_missing_frontend_is_one_line_and_exit_1(monkeypatch, capsys):
    monkeypatch.setattr(gui_commands, "FRONTENDS_GROUP", "lm_workbench.no_such_group")
    assert main([]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the window is not installed" in err


def test_output_piped_into_a_reader_that_stops_early_is_not_an_error():
    """``lm-workbench ... --json | head``: the closed pipe ends the command quietly, with no traceback."""
    import subprocess
    import sys

    script = ("import sys\nfrom lm_workbench.cli.common import run_reporting_errors\n"
              "def chatty():\n    for _ in range(200_000):\n        print('x' * 80)\n    return 0\n"
              "sys.exit(run_reporting_errors(chatty))\n")
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert child.stdout.read(100) == b"x" * 80 + b"\n" + b"x" * 19
    child.stdout.close()
    assert child.wait(timeout=60) == 0
    assert b"Traceback" not in child.stderr.read()
