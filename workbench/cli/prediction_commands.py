"""``attention``, ``fill-mask`` and ``next-token``: what a model attends to and predicts.

A text longer than the model's window is read through one window (``lm_workbench.engine.text_window``: a
decoder's last, an encoder's around its masks); the JSON's ``notes`` (and a line on stderr) say which tokens
("tokens a–b of n") whenever the window cut the text.
"""

from __future__ import annotations

import argparse
from typing import Any

from lm_workbench.cli.common import add_model_options, handled_by, on_model, positive_k


def register(sub: Any) -> None:
    """Add ``attention``, ``fill-mask`` and ``next-token`` to the CLI's subparsers."""
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
    handled_by(att, cmd_attention, json_help="print JSON (the default output is a table)")

    fill = sub.add_parser("fill-mask", help="top-k tokens for every [MASK] (models with an MLM head)")
    add_model_options(fill)
    fill.add_argument("--text", required=True, help="text with [MASK] (or the model's own mask token)")
    fill.add_argument("--k", type=int, default=5, help="candidates per mask (default 5)")
    handled_by(fill, cmd_fill_mask)

    nxt = sub.add_parser("next-token", help="top-k next tokens after a text (decoders)")
    add_model_options(nxt)
    nxt.add_argument("--text", required=True, help="the prompt")
    nxt.add_argument("--k", type=int, default=5, help="candidates (default 5)")
    handled_by(nxt, cmd_next_token)


def cmd_attention(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute import attention

    computed = on_model(args, attention)
    if computed is not None:
        data = computed.to_dict()
        queries, keys, weights = data["tokens"], data.get("key_tokens", data["tokens"]), data["weights"]
        width = max(len(t) for t in queries + keys)
        print(" " * width + " " + " ".join(f"{t[:6]:>6}" for t in keys))
        for token, row in zip(queries, weights):
            print(f"{token:>{width}} " + " ".join(f"{w:6.3f}" for w in row))
    return 0


def cmd_fill_mask(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute import fill_mask

    positive_k(args.k)  # before the model loads
    computed = on_model(args, fill_mask)
    if computed is not None:
        for p in computed["masks"]:
            print(f"position {p['position']}: " + ", ".join(f"{c['token']} {c['prob']:.3f}"
                                                             for c in p["candidates"]))
    return 0


def cmd_next_token(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute import next_token

    positive_k(args.k)  # before the model loads
    computed = on_model(args, next_token)
    if computed is not None:
        for c in computed["candidates"]:
            print(f"{c['prob']:.4f}  {c['id']:>6}  {c['token']}")
    return 0
