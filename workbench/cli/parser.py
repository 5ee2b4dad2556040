"""The ``lm-workbench`` argument parser, built from the command modules.

``COMMAND_MODULES`` is the one list of command modules: each has
``register(subparsers)``, which adds its commands' parsers and binds each to
its handler (``set_defaults(handler=...)``). A new command goes in a
``*_commands`` module (importing only ``lm_workbench.cli.common``) listed here;
nothing else changes. The order here is the order of ``--help``.
"""

from __future__ import annotations

from lm_workbench.cli import (
    attribution_commands,
    baseline_commands,
    compare_commands,
    course_model_commands,
    embedding_commands,
    finetune_commands,
    gui_commands,
    guide_commands,
    heads_commands,
    lecture_commands,
    lens_commands,
    model_commands,
    objective_commands,
    patching_commands,
    prediction_commands,
    pretrain_commands,
    probing_commands,
    prompt_commands,
    retrieval_commands,
    runs_commands,
    sae_commands,
    scalar_mix_commands,
    study_commands,
)
from lm_workbench.cli.common import PROG, OneLineParser

COMMAND_MODULES = (
    gui_commands,
    model_commands,
    prediction_commands,
    lens_commands,
    attribution_commands,
    patching_commands,
    heads_commands,
    compare_commands,
    objective_commands,
    embedding_commands,
    pretrain_commands,
    runs_commands,
    course_model_commands,
    probing_commands,
    scalar_mix_commands,
    prompt_commands,
    lecture_commands,
    finetune_commands,
    retrieval_commands,
    guide_commands,
    baseline_commands,
    study_commands,
    sae_commands,
)


def build_parser() -> OneLineParser:
    """The whole command line: top-level options, then every module's commands."""
    parser = OneLineParser(
        prog=PROG,
        description="LM Workbench: with no command, opens the window; commands run headless.",
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    parser.add_argument("--self-test", nargs="?", const="minilm", metavar="MODEL",
                        help="check the install: load MODEL (default: the built-in), encode a sentence, "
                             "list plugins, write and read a run")
    sub = parser.add_subparsers(dest="command", parser_class=OneLineParser, metavar="COMMAND")
    for module in COMMAND_MODULES:
        module.register(sub)
    return parser
