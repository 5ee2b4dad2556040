"""``attention``, ``fill-mask`` and ``next-token``: what a model attends to and predicts.

A text longer than the model's window is read through one window (``lm_workbench.engine.text_window``: a
decoder's last, an encoder's around its masks); the JSON's ``notes`` (and a line on stderr) say which tokens
("tokens a–b of n") whenever the window cut the text.
"""

from __future__ import annotations

import argparse
from typing import Any

from lm_workbench.engine.wording import with_article
from lm_workbench.cli.common import add_model_options, load_for, note, note_window, positive_k, print_json


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
    att.add_argument("--json", action="store_true", help="print JSON (the default output is a table)")
    att.set_defaults(handler=cmd_attention)

    fill = sub.add_parser("fill-mask", help="top-k tokens for every [MASK] (models with an MLM head)")
    add_model_options(fill)
    fill.add_argument("--text", required=True, help="text with [MASK] (or the model's own mask token)")
    fill.add_argument("--k", type=int, default=5, help="candidates per mask (default 5)")
    fill.add_argument("--json", action="store_true", help="print JSON")
    fill.set_defaults(handler=cmd_fill_mask)

    nxt = sub.add_parser("next-token", help="top-k next tokens after a text (decoders)")
    add_model_options(nxt)
    nxt.add_argument("--text", required=True, help="the prompt")
    nxt.add_argument("--k", type=int, default=5, help="candidates (default 5)")
    nxt.add_argument("--json", action="store_true", help="print JSON")
    nxt.set_defaults(handler=cmd_next_token)


def _read_notes(tok: Any) -> list[str]:
    """The "tokens a–b of n" line when the window cut the text (also said on stderr), else nothing."""
    from lm_workbench.engine.text_window import window_notes

    notes = window_notes(tok)
    if tok is not None and tok.truncated and tok.truncation_message:
        note(tok.truncation_message)
    return notes


def cmd_attention(args: argparse.Namespace) -> int:
    from lm_workbench.engine.analysis import encode
    from lm_workbench.engine.attention import AttentionKind, attention_matrix, attention_side, hide_special
    from lm_workbench.engine.errors import WorkbenchError
    from lm_workbench.engine.text_window import with_notes

    loaded = load_for(args)
    if loaded.info.family == "biLM":
        raise WorkbenchError(f"{args.model} is an LSTM language model (ELMo): it has no attention; "
                             "'encode' gives its layers")
    if args.kind != "encoder" and loaded.info.family != "encoder-decoder":
        raise WorkbenchError(f"--kind {args.kind} is for encoder-decoders; {args.model} is {with_article(loaded.info.family)}")
    result = encode(loaded, args.text, pair=args.pair, target=args.target, attentions=True)
    side = attention_side(result, AttentionKind(args.kind))
    weights = attention_matrix(side, args.layer, [args.head])[0]
    queries, keys = side.query_tokens, side.key_tokens
    if args.hide_special:
        weights, q_keep, k_keep = hide_special(weights, side.query_special, side.key_special)
        queries, keys = [queries[i] for i in q_keep], [keys[i] for i in k_keep]
    notes = _read_notes(result.tokenized)
    if args.json:
        data = {"tokens": queries, "weights": weights.tolist(), "layer": args.layer, "head": args.head,
                "kind": args.kind}
        if keys != queries:
            data["key_tokens"] = keys
        print_json(with_notes(data, notes))
    else:
        width = max(len(t) for t in queries + keys)
        print(" " * width + " " + " ".join(f"{t[:6]:>6}" for t in keys))
        for token, row in zip(queries, weights):
            print(f"{token:>{width}} " + " ".join(f"{w:6.3f}" for w in row))
    return 0


def cmd_fill_mask(args: argparse.Namespace) -> int:
    from lm_workbench.engine.predictions import fill_mask
    from lm_workbench.engine.text_window import with_notes

    k = positive_k(args.k)
    tok, predictions = fill_mask(load_for(args), args.text, k)
    notes = _read_notes(tok)
    if args.json:
        print_json(with_notes({"tokens": tok.tokens, "masks": [p.to_dict() for p in predictions]}, notes))
    else:
        for p in predictions:
            print(f"position {p.position}: " + ", ".join(f"{c.token} {c.prob:.3f}" for c in p.candidates))
    return 0


def cmd_next_token(args: argparse.Namespace) -> int:
    from lm_workbench.engine.predictions import next_tokens
    from lm_workbench.engine.text_window import window_notes, with_notes

    read = next_tokens(load_for(args), args.text, positive_k(args.k))
    notes = window_notes(read.window)
    note_window(notes)
    if args.json:
        print_json(with_notes({"candidates": [c.to_dict() for c in read.candidates]}, notes))
    else:
        for c in read.candidates:
            print(f"{c.prob:.4f}  {c.id:>6}  {c.token}")
    return 0
