"""Argument parsing for ``lm-workbench``: one-line errors, exit code 2."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

from workbench.cli.embedding_commands import add_embedding_commands
from workbench.cli.objective_commands import add_objective_commands
from workbench.cli.pretrain_commands import add_pretrain_commands

PROG = "lm-workbench"


class UsageError(Exception):
    """Bad command-line input; printed as one line, exit code 2."""


class OneLineParser(argparse.ArgumentParser):
    """argparse that reports bad usage in one line instead of usage + message."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


def add_model_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", help="a model folder, a hub id (org/name) or 'minilm' (the built-in default)")
    p.add_argument("--device", choices=["auto", "cpu", "cuda"], help="where to run (default: settings, auto)")
    p.add_argument("--precision", choices=["auto", "float32", "bfloat16", "float16"],
                   help="weights' number format (default: settings, auto)")
    p.add_argument("--threads", type=int, help="CPU threads (default: settings, all cores)")
    p.add_argument("--offline", action="store_true", default=None, help="never contact the hub")
    p.add_argument("--allow-pickle", action="store_true", default=None,
                   help="allow pickle (.bin) weights; only for sources you trust")
    p.add_argument("--trust-remote-code", action="store_true", default=None,
                   help="let the model folder run its own code; only for sources you trust")


def build_parser() -> OneLineParser:
    parser = OneLineParser(
        prog=PROG,
        description="LM Workbench: with no command, opens the window; commands run headless.",
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    parser.add_argument("--self-test", nargs="?", const="minilm", metavar="MODEL",
                        help="check the install: load MODEL (default: the built-in), encode a sentence, "
                             "list plugins, write and read a run")
    sub = parser.add_subparsers(dest="command", parser_class=OneLineParser, metavar="COMMAND")

    gui = sub.add_parser("gui", help="open the window (the default with no command)")
    gui.add_argument("model", nargs="?", help="model to open instead of the default")

    info = sub.add_parser("info", help="what a model is: family, layers, heads, heads present")
    add_model_options(info)
    info.add_argument("--json", action="store_true", help="print JSON")

    enc = sub.add_parser("encode", help="tokens, hidden states and attentions of a text, to an .npz file")
    add_model_options(enc)
    src = enc.add_mutually_exclusive_group(required=True)
    src.add_argument("--text", help="the text to encode")
    src.add_argument("--text-file", help="read the text from a UTF-8 file")
    enc.add_argument("--pair", help="a second segment (sentence pair)")
    enc.add_argument("--target", help="encoder-decoders: the decoder's target text (else its greedy output)")
    enc.add_argument("--out", required=True, help="output .npz file")
    enc.add_argument("--no-attentions", action="store_true", help="skip attentions (faster, smaller)")
    enc.add_argument("--json", action="store_true", help="print a JSON summary of what was written")
    add_prediction_commands(sub)
    add_objective_commands(sub)
    add_embedding_commands(sub)
    add_pretrain_commands(sub)
    return parser


def add_prediction_commands(sub) -> None:
    att = sub.add_parser("attention", help="one head's attention weights for a text")
    add_model_options(att)
    att.add_argument("--text", required=True, help="the text")
    att.add_argument("--pair", help="a second segment (sentence pair)")
    att.add_argument("--target", help="encoder-decoders: the decoder's target text (else its greedy output)")
    att.add_argument("--kind", choices=["encoder", "decoder", "cross"], default="encoder",
                     help="encoder-decoders: which attention (default: encoder self-attention)")
    att.add_argument("--layer", type=int, required=True, help="layer, from 0")
    att.add_argument("--head", type=int, required=True, help="head, from 0")
    att.add_argument("--hide-special", action="store_true", help="drop special tokens and renormalise rows")
    att.add_argument("--json", action="store_true", help="print JSON (the default output is a table)")

    fill = sub.add_parser("fill-mask", help="top-k tokens for every [MASK] (models with an MLM head)")
    add_model_options(fill)
    fill.add_argument("--text", required=True, help="text with [MASK] (or the model's own mask token)")
    fill.add_argument("--k", type=int, default=5, help="candidates per mask (default 5)")
    fill.add_argument("--json", action="store_true", help="print JSON")

    nxt = sub.add_parser("next-token", help="top-k next tokens after a text (decoders)")
    add_model_options(nxt)
    nxt.add_argument("--text", required=True, help="the prompt")
    nxt.add_argument("--k", type=int, default=5, help="candidates (default 5)")
    nxt.add_argument("--json", action="store_true", help="print JSON")

    lens = sub.add_parser("lens", help="logit lens: the top token of every layer at every position")
    add_model_options(lens)
    lens.add_argument("--text", required=True, help="the text")
    lens.add_argument("--target", help="encoder-decoders: the decoder's target text (else its greedy output)")
    lens.add_argument("--k", type=int, default=1, help="candidates per cell (default 1)")
    lens.add_argument("--json", action="store_true", help="print JSON")


def print_error(message: str) -> None:
    print(f"{PROG}: error: {' '.join(str(message).split())}", file=sys.stderr)
